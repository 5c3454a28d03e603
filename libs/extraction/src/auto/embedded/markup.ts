import type { Element } from 'domhandler';
import { rawText } from '@trawl/extraction/dom';

/** Collapses every run of whitespace (NBSP included) to one space and trims the ends. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The last segment of a vocabulary term: `http://schema.org/Product` → `Product`, `schema:name` → `name`. */
export function localName(term: string): string {
  const trimmed = term.trim();
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('#'), trimmed.lastIndexOf(':'));
  return cut === -1 ? trimmed : trimmed.slice(cut + 1);
}

/** The words of an attribute holding a space-separated list (`itemprop="name headline"`). */
export function tokens(value: string | undefined): string[] {
  return value === undefined ? [] : value.split(/\s+/).filter((token) => token !== '');
}

/** Elements whose microdata or RDFa value is a URL in an attribute, and that attribute. */
const URL_ATTRIBUTE: Readonly<Record<string, string>> = {
  a: 'href',
  area: 'href',
  link: 'href',
  audio: 'src',
  embed: 'src',
  iframe: 'src',
  img: 'src',
  source: 'src',
  track: 'src',
  video: 'src',
  object: 'data',
};

/**
 * The value of a property element, by the microdata rules (HTML §5.2.4), which RDFa Lite's
 * usage matches: `content` (any element: Google reads it, and shops put `content="19.99"` on a
 * span showing "$19.99"), a link's or media element's URL resolved against the page, `<data>` and
 * `<meter>` `value`, `<time datetime>`, else the text, whitespace collapsed.
 */
export function propertyValue(element: Element, base: URL): string {
  const attribs = element.attribs;
  if (attribs.content !== undefined) return attribs.content.trim();
  const urlAttribute = URL_ATTRIBUTE[element.name];
  if (urlAttribute !== undefined) {
    const raw = attribs[urlAttribute] ?? (element.name === 'img' ? attribs['data-src'] : undefined);
    if (raw === undefined) return '';
    return URL.parse(raw.trim(), base.href)?.href ?? raw.trim();
  }
  if ((element.name === 'data' || element.name === 'meter') && attribs.value !== undefined) return attribs.value.trim();
  if (element.name === 'time' && attribs.datetime !== undefined) return attribs.datetime.trim();
  return collapseWhitespace(rawText(element));
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  ndash: '–',
  mdash: '—',
  hellip: '…',
  rsquo: '’',
  lsquo: '‘',
  rdquo: '”',
  ldquo: '“',
  euro: '€',
  pound: '£',
  copy: '©',
  reg: '®',
  trade: '™',
};

/**
 * `text` with common HTML character references decoded: CMSs often write JSON-LD strings
 * HTML-escaped (`Tom &amp; Jerry`). Unknown names stay as written.
 */
export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,8}));/gi, (whole, decimal?: string, hex?: string, name?: string) => {
    if (decimal !== undefined || hex !== undefined) {
      const code = decimal !== undefined ? Number(decimal) : parseInt(hex ?? '', 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[(name ?? '').toLowerCase()] ?? whole;
  });
}
