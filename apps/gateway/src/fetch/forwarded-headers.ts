import type { IncomingHttpHeaders } from 'node:http';
import { DEFAULT_BODY_CONTENT_TYPE, isForwardableHeader } from '@trawl/fetch-params';

/**
 * The headers a Fetch request sends to the target: with `custom_headers`, the caller's own (minus
 * hop-by-hop, credentials and infrastructure headers, `isForwardableHeader`, and those named by
 * `Connection`); with a body, its content type (default
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
      if (value === undefined || !isForwardableHeader(lower) || named.includes(lower)) continue;
      if (!hasBody && lower === 'content-type') continue;
      headers[lower] = Array.isArray(value) ? value.join(', ') : value;
    }
  }
  if (hasBody) {
    const contentType = incoming['content-type'];
    headers['content-type'] = typeof contentType === 'string' && contentType !== '' ? contentType : DEFAULT_BODY_CONTENT_TYPE;
  }
  return headers;
}
