import { Tier } from '@trawl/billing';
import type { HttpEngine } from '../page-fetch/http-engine';
import type { FetchEngine, TargetPage, TargetRequest } from './fetch-engine';

/** The `basic` tier of the Fetch API: one HTTP exchange (method, headers and body as asked). */
export class HttpFetchEngine implements FetchEngine {
  constructor(private readonly http: HttpEngine) {}

  async fetch(request: TargetRequest): Promise<TargetPage> {
    const response = await this.http.exchange({
      url: request.url,
      method: request.method,
      headers: request.headers,
      body: request.body,
      maxBodyBytes: request.maxBodyBytes,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
    });
    return {
      tier: Tier.Basic,
      status: response.status,
      finalUrl: response.finalUrl,
      headers: response.headers,
      contentType: response.contentType,
      body: response.body,
    };
  }
}
