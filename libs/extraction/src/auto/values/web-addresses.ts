import type { ValueContext } from './value-kind';

/** ASCII whitespace the HTML spec strips around attribute URLs. */
const ASCII_WHITESPACE = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;
const IMAGE_EXTENSION = /\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?|jfif|heic)$/i;
/** Looks like a link at all: absolute, protocol-relative or `www.`; relative paths only with a page URL. */
const ABSOLUTE = /^(?:https?:)?\/\/[^\s/]+|^www\.[^\s/]+\.[a-z]{2,}/i;

/**
 * The absolute http(s) URL a text is, resolved against the page's URL when relative, or undefined
 * (`javascript:`, `data:`, text with spaces, a relative path and no page URL).
 */
export function parseUrl(raw: string, context?: ValueContext): string | undefined {
  const text = raw.replace(ASCII_WHITESPACE, '');
  if (text === '' || /\s/.test(text)) return undefined;
  const base = context?.pageUrl;
  let url: URL | null;
  if (/^www\./i.test(text)) url = URL.parse(`https://${text}`);
  else if (base === undefined) url = ABSOLUTE.test(text) ? URL.parse(text.startsWith('//') ? `https:${text}` : text) : null;
  else url = URL.parse(text, base.href);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  return url.href;
}

/** Whether a text is an absolute (or protocol-relative, or `www.`) link, as a slot holding one is. */
export function looksLikeUrl(text: string): boolean {
  return ABSOLUTE.test(text) && !/\s/.test(text);
}

/** Whether an URL's path ends like an image file's (`.jpg`, `.webp`…). */
export function hasImageExtension(url: string): boolean {
  const parsed = URL.parse(url, 'https://x.invalid/');
  return parsed !== null && IMAGE_EXTENSION.test(parsed.pathname);
}
