/**
 * Headers that never go to the target as a caller's own (`custom_headers`): hop-by-hop headers
 * (RFC 9110 §7.6.1), the caller's credentials for us (`X-API-Key`, `Proxy-Authorization`), the Host
 * of our API, and what our infrastructure adds. `Authorization` is the target's: Trawl never reads
 * it on `/v1/`, and a client behind proxy mode sends it for the site (a Bearer token, basic auth).
 */
/**
 * Hop-by-hop headers (RFC 9110 §7.6.1, and the proxy ones clients still send): they describe one
 * connection, never the request or the answer, so no hop of ours passes them on either way.
 */
export const HOP_BY_HOP_HEADERS: readonly string[] = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

const NEVER_FORWARDED = new Set([
  ...HOP_BY_HOP_HEADERS,
  'host',
  'content-length',
  'expect',
  // The worker negotiates compression with the target itself and hands the caller a decoded body.
  'accept-encoding',
  'x-api-key',
  'traceparent',
  'tracestate',
  'baggage',
  'forwarded',
  'via',
]);
const NEVER_FORWARDED_PREFIXES = ['x-forwarded-', 'x-real-', 'x-request-', 'x-trawl-', 'cf-', 'x-amzn-'];

/** Whether a caller's header (lowercase name) may go to the target with `custom_headers`. */
export function isForwardableHeader(lowerName: string): boolean {
  if (NEVER_FORWARDED.has(lowerName)) return false;
  return !NEVER_FORWARDED_PREFIXES.some((prefix) => lowerName.startsWith(prefix));
}

/** Content type of a target body sent without one (fetch-details "Endpoint"). */
export const DEFAULT_BODY_CONTENT_TYPE = 'application/x-www-form-urlencoded';
