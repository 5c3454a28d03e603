import { decodeHTML, decodeHTMLAttribute } from 'entities';
import { Parser, type Handler } from 'htmlparser2';
import { isSameSite, MAX_URL_LENGTH, normalizeParsedUrl, urlKeyOfParsed } from '@trawl/egress';
import { boundNesting } from '@trawl/extraction';

/** The links a crawl follows from one page. */
export interface ExtractedLinks {
  /** Normalised, in-scope, ≤ `MAX_URL_LENGTH`-character URLs, unique by `urlKey`, in document order. */
  links: string[];
  /** In-scope links dropped because an earlier link on the same page had the same `urlKey`. */
  duplicateLinks: number;
}

/** Elements whose `href` is a hyperlink a user can follow (HTML §4.6.1). */
const LINK_ELEMENTS = new Set(['a', 'area']);

/** ASCII whitespace the HTML spec strips around attribute URLs; `String.trim` would strip more. */
const ASCII_WHITESPACE = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;

/**
 * Finds the links of an HTML page that a crawl on `scopeDomain` follows: `a[href]` and
 * `area[href]`, resolved against the page's `<base href>` (the first one, as browsers do) or else
 * its final URL, normalised with `normalizeUrl`, kept only when http(s), at most `MAX_URL_LENGTH`
 * characters (both as written once resolved and normalised) and on the crawl's site (subdomains
 * included). Fragment-only and empty hrefs point into the page itself and are not links.
 *
 * Runs on every crawled page, so it streams tokens through htmlparser2 without building a DOM.
 *
 * @param html decoded page HTML
 * @param pageUrl the page's final URL, after redirects
 * @param scopeDomain registrable domain the crawl stays on (e.g. `example.com`)
 */
export function extractLinks(html: string, pageUrl: string, scopeDomain: string): ExtractedLinks {
  const { hrefs, baseHref } = readHrefs(html, false);
  // A <base> anywhere in the document applies to every link, also those before it, so links are
  // resolved after the whole page is read.
  const base = documentBase(pageUrl, baseHref);
  const inScope = hostCheck((hostname) => isSameSite(hostname, scopeDomain));
  const links: string[] = [];
  const seen = new Set<string>();
  let duplicateLinks = 0;
  for (const href of hrefs) {
    const link = followableLink(href, base, inScope);
    if (link === undefined) continue;
    // Keyed from the URL already parsed: parsing each link once more was a tenth of this function.
    const key = urlKeyOfParsed(link);
    if (seen.has(key)) {
      duplicateLinks++;
      continue;
    }
    seen.add(key);
    links.push(link.href);
  }
  return { links, duplicateLinks };
}

/** A link of a page with the text a reader sees on it. */
export interface TitledLink {
  /** Normalised as `extractLinks` does. */
  url: string;
  /** The link's text, whitespace collapsed, at most `MAX_LINK_TEXT` characters; empty for an image link. */
  text: string;
}

/** Characters of a link's text kept: enough to rank by, not a page's worth. */
export const MAX_LINK_TEXT = 200;

/**
 * The links of a page as `extractLinks` finds them (same elements, base, normalisation and
 * length bounds), with their text, in document order, duplicates by `urlKey` kept (each with its
 * own text): for a map, which ranks links by what they say. `inScope` decides by host name.
 */
export function extractTitledLinks(html: string, pageUrl: string, inScope: (hostname: string) => boolean): TitledLink[] {
  const { hrefs, texts, baseHref } = readHrefs(html, true);
  const base = documentBase(pageUrl, baseHref);
  const check = hostCheck(inScope);
  const links: TitledLink[] = [];
  hrefs.forEach((href, index) => {
    const url = followableLink(href, base, check);
    if (url !== undefined) links.push({ url: url.href, text: texts[index] });
  });
  return links;
}

/** The hrefs of `a` and `area` (with their texts when `withText`), and the first `<base href>`. */
function readHrefs(html: string, withText: boolean): { hrefs: string[]; texts: string[]; baseHref: string | undefined } {
  const hrefs: string[] = [];
  const texts: string[] = [];
  let baseHref: string | undefined;
  /** Index in `texts` of the open `<a>` whose text is being read. */
  let open = -1;
  /** Indexes in `texts` of `<area>` alt texts, decoded already. */
  const altTexts = new Set<number>();
  const handlers: Partial<Handler> = {
    onopentag(name, attributes) {
      const raw = attributes.href;
      if (raw === undefined) return;
      if (LINK_ELEMENTS.has(name)) {
        hrefs.push(decodedAttribute(raw));
        if (withText) {
          texts.push('');
          // An <area> has no content: its alt text stands for it (decoded as an attribute, and not again).
          if (name === 'area') {
            altTexts.add(texts.length - 1);
            texts[texts.length - 1] = decodedAttribute(attributes.alt ?? '');
          } else open = texts.length - 1;
        }
      } else if (name === 'base' && baseHref === undefined) baseHref = decodedAttribute(raw);
    },
  };
  // Only when asked: a crawl reads links on every page and has no use for their text.
  if (withText) {
    handlers.ontext = (text) => {
      // Read as written (references still encoded, whitespace not collapsed): room for both, bounded.
      if (open !== -1 && texts[open].length < MAX_LINK_TEXT * 8) texts[open] += text;
    };
    handlers.onclosetag = (name) => {
      if (name === 'a') open = -1;
    };
  }
  // Entities are decoded here, in the few values read, not by the tokenizer in the whole page: a
  // tokenizer that decodes steps through every character of text, one that does not skips to the
  // next tag (half the time of a crawl page's link extraction, measured on 8 KB pages).
  const parser = new Parser(handlers, { decodeEntities: false });
  parser.end(boundNesting(html));
  if (withText) {
    for (let i = 0; i < texts.length; i++) {
      const text = altTexts.has(i) ? texts[i] : decodeHTML(texts[i]);
      texts[i] = text.replace(/\s+/g, ' ').trim().slice(0, MAX_LINK_TEXT);
    }
  }
  return { hrefs, texts, baseHref };
}

/** An attribute's value as written, with its character references decoded as HTML decodes an attribute's. */
function decodedAttribute(raw: string): string {
  return raw.includes('&') ? decodeHTMLAttribute(raw) : raw;
}

/** The URL relative links resolve against: `<base href>` when it is a usable http(s) URL. */
function documentBase(pageUrl: string, baseHref: string | undefined): string {
  if (baseHref === undefined) return pageUrl;
  const resolved = resolve(baseHref.replace(ASCII_WHITESPACE, ''), pageUrl);
  return resolved && isHttp(resolved) ? resolved.href : pageUrl;
}

/** A host check remembered per host: a page links to few hosts, many times. */
function hostCheck(inScope: (hostname: string) => boolean): (hostname: string) => boolean {
  const answers = new Map<string, boolean>();
  return (hostname) => {
    let answer = answers.get(hostname);
    if (answer === undefined) {
      answer = inScope(hostname);
      answers.set(hostname, answer);
    }
    return answer;
  };
}

/** The link `rawHref` as a URL normalised in place (its `href` is `normalizeUrl`'s form), when a crawl may follow it. */
function followableLink(rawHref: string, base: string, inScope: (hostname: string) => boolean): URL | undefined {
  const href = rawHref.replace(ASCII_WHITESPACE, '');
  if (href === '' || href.startsWith('#')) return undefined;
  // Crawl spec §8 caps followed links at 2,048 characters; checking the attribute first also keeps
  // a megabyte-long data: URI from ever reaching the URL parser.
  if (href.length > MAX_URL_LENGTH) return undefined;
  const resolved = resolve(href, base);
  if (!resolved || !isHttp(resolved) || resolved.href.length > MAX_URL_LENGTH) return undefined;
  if (!inScope(resolved.hostname)) return undefined;
  const normalized = normalizeParsedUrl(resolved);
  if (normalized === null || normalized.length > MAX_URL_LENGTH) return undefined;
  return resolved;
}

function resolve(href: string, base: string): URL | undefined {
  try {
    return new URL(href, base);
  } catch {
    return undefined;
  }
}

function isHttp(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}
