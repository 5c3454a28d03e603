import { checkedFetch } from './api-document';
import type { Platform } from './platform';

/** A Fetch API answer as a test reads it. */
export interface FetchAnswer {
  status: number;
  headers: Headers;
  text: string;
  bytes: Buffer;
}

/** `GET /v1/?apikey=…&<params>` on the platform's gateway, checked against the API document. */
export async function callFetchApi(platform: Platform, apiKey: string, params: Record<string, string>): Promise<FetchAnswer> {
  const res = await checkedFetch(`${platform.gatewayUrl}/v1/?${new URLSearchParams({ apikey: apiKey, ...params }).toString()}`);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, text: bytes.toString('utf8'), bytes };
}

/** The credits an answer says it cost (`X-Request-Credits`). */
export function creditsOf(answer: Pick<FetchAnswer, 'headers'>): number {
  return Number(answer.headers.get('x-request-credits'));
}
