import { Parser } from 'htmlparser2';
import { isSameSite, MAX_URL_LENGTH, normalizeParsedUrl, urlKey } from '@trawl/egress';
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
  const hrefs: string[] = [];
  let baseHref: string | undefined;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        const href = attributes.href;
        if (href === undefined) return;
        if (LINK_ELEMENTS.has(name)) hrefs.push(href);
        else if (name === 'base' && baseHref === undefined) baseHref = href;
      },
    },
    { decodeEntities: true },
  );
  parser.end(boundNesting(html));

  // A <base> anywhere in the document applies to every link, also those before it, so links are
  // resolved after the whole page is read.
  const base = documentBase(pageUrl, baseHref);
  const inScope = siteCheck(scopeDomain);
  const links: string[] = [];
  const seen = new Set<string>();
  let duplicateLinks = 0;
  for (const href of hrefs) {
    const link = followableLink(href, base, inScope);
    if (link === undefined) continue;
    const key = urlKey(link);
    if (seen.has(key)) {
      duplicateLinks++;
      continue;
    }
    seen.add(key);
    links.push(link);
  }
  return { links, duplicateLinks };
}

/** The URL relative links resolve against: `<base href>` when it is a usable http(s) URL. */
function documentBase(pageUrl: string, baseHref: string | undefined): string {
  if (baseHref === undefined) return pageUrl;
  const resolved = resolve(baseHref.replace(ASCII_WHITESPACE, ''), pageUrl);
  return resolved && isHttp(resolved) ? resolved.href : pageUrl;
}

/** `isSameSite` against the crawl's domain, remembered per host: a page links to few hosts, many times. */
function siteCheck(scopeDomain: string): (hostname: string) => boolean {
  const answers = new Map<string, boolean>();
  return (hostname) => {
    let answer = answers.get(hostname);
    if (answer === undefined) {
      answer = isSameSite(hostname, scopeDomain);
      answers.set(hostname, answer);
    }
    return answer;
  };
}

function followableLink(rawHref: string, base: string, inScope: (hostname: string) => boolean): string | undefined {
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
  return normalized;
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
