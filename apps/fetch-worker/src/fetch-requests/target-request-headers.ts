import { BROWSER_HEADERS } from '../page-fetch/http-engine';

/**
 * Caller headers never forwarded: hop-by-hop ones (RFC 9110 §7.6.1), the ones the HTTP client sets
 * itself for the target (host, length), and `accept-encoding`, because the worker must be able to
 * decode what comes back (gzip, deflate, br) before it transforms or measures the page.
 */
const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'accept-encoding',
  'expect',
]);

/** The body type when the caller sent a body without one (fetch-details "Endpoint"). */
export const DEFAULT_BODY_TYPE = 'application/x-www-form-urlencoded';

/**
 * Headers for the target: a current Chrome's navigation headers (`BROWSER_HEADERS`), with the
 * caller's own headers over them (names compared case-insensitively; a caller's `User-Agent` wins).
 * A request with a body and no content type says `application/x-www-form-urlencoded`.
 */
export function targetRequestHeaders(callerHeaders: Readonly<Record<string, string>>, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = { ...BROWSER_HEADERS };
  for (const [name, value] of Object.entries(callerHeaders)) {
    const lower = name.toLowerCase();
    if (!NOT_FORWARDED.has(lower)) headers[lower] = value;
  }
  if (hasBody && headers['content-type'] === undefined) headers['content-type'] = DEFAULT_BODY_TYPE;
  return headers;
}
