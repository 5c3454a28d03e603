import type { HttpEngine } from '../page-fetch/http-engine';
import type { UpstreamAgents } from '../proxies';
import type { FetchEngine, TargetPage, TargetRequest } from './fetch-engine';

/**
 * The tiers without rendering (`basic`, `premium`): one HTTP exchange (method, headers and body as
 * asked), direct or through the upstream proxy of the attempt.
 */
export class HttpFetchEngine implements FetchEngine {
  constructor(
    private readonly http: HttpEngine,
    /** Agents of upstream proxies; without them a request that names a proxy egresses directly. */
    private readonly upstream?: UpstreamAgents,
  ) {}

  async fetch(request: TargetRequest): Promise<TargetPage> {
    const response = await this.http.exchange({
      url: request.url,
      method: request.method,
      identity: request.identity,
      headers: request.callerHeaders,
      body: request.body,
      maxBodyBytes: request.maxBodyBytes,
      acceptBody: request.acceptBody,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      agent: request.proxy && this.upstream ? this.upstream.agentFor(request.proxy.url) : undefined,
      upstreamProxyUrl: request.proxy && this.upstream ? request.proxy.url : undefined,
    });
    return {
      tier: request.tier,
      status: response.status,
      finalUrl: response.finalUrl,
      headers: response.headers,
      contentType: response.contentType,
      body: response.body,
    };
  }
}
