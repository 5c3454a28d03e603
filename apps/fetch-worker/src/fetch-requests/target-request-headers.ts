import { BROWSER_HEADERS, MOBILE_BROWSER_HEADERS } from '../page-fetch/http-engine';

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
 * `application/x-www-form-urlencoded` for a body without a content type. What a browser sends with
 * its first navigation (Chromium adds its own browser headers).
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

/**
 * Headers for the target over plain HTTP: a current Chrome's navigation headers
 * (`BROWSER_HEADERS`, or Chrome on Android's for `device=mobile`), with the caller's own over them
 * (`callerRequestHeaders`; names compared case-insensitively, so a caller's `User-Agent` wins).
 */
export function targetRequestHeaders(
  callerHeaders: Readonly<Record<string, string>>,
  hasBody: boolean,
  device: 'desktop' | 'mobile' = 'desktop',
): Record<string, string> {
  return { ...(device === 'mobile' ? MOBILE_BROWSER_HEADERS : BROWSER_HEADERS), ...callerRequestHeaders(callerHeaders, hasBody) };
}
