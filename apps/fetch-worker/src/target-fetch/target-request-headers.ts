import { DEFAULT_BODY_CONTENT_TYPE, HOP_BY_HOP_HEADERS } from '@trawl/fetch-params';

/**
 * Caller headers never forwarded: hop-by-hop ones (RFC 9110 §7.6.1), the ones the HTTP client sets
 * itself for the target (host, length), and `accept-encoding`, because the worker must be able to
 * decode what comes back (gzip, deflate, br) before it transforms or measures the page.
 */
const NOT_FORWARDED = new Set([...HOP_BY_HOP_HEADERS, 'host', 'content-length', 'accept-encoding', 'expect']);

/**
 * The caller's own headers that may go to the target (lower-case names), with
 * `application/x-www-form-urlencoded` for a body without a content type: what the identity's
 * browser sends with its own (see `navigationHeaders`), in their place when they replace one.
 */
export function callerRequestHeaders(callerHeaders: Readonly<Record<string, string>>, hasBody: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(callerHeaders)) {
    const lower = name.toLowerCase();
    if (!NOT_FORWARDED.has(lower)) headers[lower] = value;
  }
  if (hasBody && headers['content-type'] === undefined) headers['content-type'] = DEFAULT_BODY_CONTENT_TYPE;
  return headers;
}
