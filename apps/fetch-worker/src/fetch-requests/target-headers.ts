import { HOP_BY_HOP_HEADERS } from '@trawl/fetch-params';

/**
 * Target response headers that describe the connection or the encoding of the bytes on the wire,
 * not the page: hop-by-hop (RFC 9110 §7.6.1) and the framing the worker undid (it decompresses and
 * the gateway frames the answer anew).
 */
const DROPPED = new Set([...HOP_BY_HOP_HEADERS, 'content-encoding', 'content-length', 'set-cookie']);

/** Prefix of target headers in the answer (fetch-details "Response headers"). */
const TARGET_HEADER_PREFIX = 'Zr-';

/**
 * The target's response headers for the caller, each prefixed `Zr-` (`content-type` →
 * `Zr-Content-Type`), plus `Zr-Final-Url` (the URL after redirects) and `Zr-Cookies`: the cookies
 * the target set, as `name=value` pairs joined with `; ` (ready to send back in a Cookie header;
 * attributes such as Path and Expires are dropped). Hop-by-hop and framing headers are dropped.
 */
export function targetHeaders(headers: Readonly<Record<string, string | string[]>>, finalUrl: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (DROPPED.has(lower)) continue;
    result[TARGET_HEADER_PREFIX + titleCase(lower)] = Array.isArray(value) ? value.join(', ') : value;
  }
  const cookies = cookiePairs(headers['set-cookie']);
  if (cookies.length > 0) result[`${TARGET_HEADER_PREFIX}Cookies`] = cookies.join('; ');
  result[`${TARGET_HEADER_PREFIX}Final-Url`] = finalUrl;
  return result;
}

/** `name=value` of each Set-Cookie line (RFC 6265 §5.2: the part before the first `;`). */
export function cookiePairs(setCookie: string | string[] | undefined): string[] {
  const lines = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
  return lines.map((line) => line.split(';', 1)[0].trim()).filter((pair) => pair.includes('=') && !pair.startsWith('='));
}

/**
 * Names already title-cased: a site sends the same dozen on every page, and the regular expression
 * with a callback was ~2 % of a fetch worker's CPU. Bounded, since a target chooses its names.
 */
const TITLE_CASED = new Map<string, string>();
const MAX_TITLE_CASED = 512;

function titleCase(name: string): string {
  const known = TITLE_CASED.get(name);
  if (known !== undefined) return known;
  const cased = name.replace(/(^|-)([a-z])/g, (_match, dash: string, letter: string) => dash + letter.toUpperCase());
  if (TITLE_CASED.size < MAX_TITLE_CASED) TITLE_CASED.set(name, cased);
  return cased;
}
