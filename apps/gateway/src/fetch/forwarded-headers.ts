import type { IncomingHttpHeaders } from 'node:http';

/**
 * Headers that never go to the target with `custom_headers=true`: hop-by-hop headers (RFC 9110
 * §7.6.1), the caller's credentials for us, the Host of our API, and what our infrastructure adds.
 */
const NEVER_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'expect',
  // The worker negotiates compression with the target itself and hands the caller a decoded body.
  'accept-encoding',
  'x-api-key',
  'authorization',
  'traceparent',
  'tracestate',
  'baggage',
  'forwarded',
  'via',
]);
const NEVER_FORWARDED_PREFIXES = ['x-forwarded-', 'x-real-', 'x-request-', 'x-trawl-', 'cf-', 'x-amzn-'];

/**
 * The headers a Fetch request sends to the target: with `custom_headers`, the caller's own (minus
 * those above and those named by `Connection`); with a body, its content type (default
 * `application/x-www-form-urlencoded`, fetch-details "Endpoint"). Names are lowercase.
 */
export function targetHeaders(
  incoming: IncomingHttpHeaders,
  { customHeaders, hasBody }: { customHeaders: boolean; hasBody: boolean },
): Record<string, string> {
  const headers: Record<string, string> = {};
  if (customHeaders) {
    const named = String(incoming.connection ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name !== '');
    for (const [name, value] of Object.entries(incoming)) {
      const lower = name.toLowerCase();
      if (value === undefined || NEVER_FORWARDED.has(lower) || named.includes(lower)) continue;
      if (NEVER_FORWARDED_PREFIXES.some((prefix) => lower.startsWith(prefix))) continue;
      if (!hasBody && lower === 'content-type') continue;
      headers[lower] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  if (hasBody) {
    const contentType = incoming['content-type'];
    headers['content-type'] = typeof contentType === 'string' && contentType !== '' ? contentType : 'application/x-www-form-urlencoded';
  }
  return headers;
}
