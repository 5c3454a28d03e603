/** ASCII whitespace the HTML spec strips around attribute URLs; `String.trim` would strip more. */
const ASCII_WHITESPACE = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;

/**
 * `raw` (an attribute value) resolved against `base`, when the result is an http(s) URL; otherwise
 * undefined (empty, unparsable, `javascript:`, `data:`, `mailto:`…).
 */
export function resolveHttpUrl(raw: string | undefined, base: URL): string | undefined {
  if (raw === undefined) return undefined;
  const trimmed = raw.replace(ASCII_WHITESPACE, '');
  if (trimmed === '') return undefined;
  const url = URL.parse(trimmed, base.href);
  if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) return undefined;
  return url.href;
}

/**
 * `raw` resolved against `base` whatever its scheme (a `mailto:` stays a `mailto:`), or `raw`
 * trimmed when it does not parse as a URL at all.
 */
export function resolveAnyUrl(raw: string, base: URL): string {
  const trimmed = raw.replace(ASCII_WHITESPACE, '');
  if (trimmed === '') return '';
  return URL.parse(trimmed, base.href)?.href ?? trimmed;
}

/**
 * The URLs of a `srcset` attribute, in order, as written (not resolved). Follows the HTML
 * "parse a srcset attribute" steps closely enough for real pages: a URL runs to the next
 * whitespace, a trailing comma ends a candidate, and descriptors run to the next comma outside
 * parentheses. Linear in the attribute's length.
 */
export function srcsetUrls(srcset: string): string[] {
  const urls: string[] = [];
  const length = srcset.length;
  let i = 0;
  while (i < length) {
    while (i < length && (isSpace(srcset[i]) || srcset[i] === ',')) i++;
    if (i >= length) break;
    const start = i;
    while (i < length && !isSpace(srcset[i])) i++;
    let url = srcset.slice(start, i);
    let endsCandidate = false;
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
      endsCandidate = true;
    }
    if (url !== '') urls.push(url);
    if (endsCandidate) continue;
    let depth = 0;
    while (i < length) {
      const char = srcset[i];
      if (char === '(') depth++;
      else if (char === ')') depth = Math.max(0, depth - 1);
      else if (char === ',' && depth === 0) break;
      i++;
    }
  }
  return urls;
}

function isSpace(char: string | undefined): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f';
}
