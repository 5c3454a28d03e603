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
  if (hasBody && headers['content-type'] === undefined) headers['content-type'] = DEFAULT_BODY_TYPE;
  return headers;
}
