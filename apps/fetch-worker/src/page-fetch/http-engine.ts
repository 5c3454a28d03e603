import type { Agent } from 'undici';
import { EgressPolicy, safeRequest, type SafeRequestOptions } from '@trawl/egress';
import { navigationHeaders, type BrowserIdentity } from '../identity';
import type { ChromeTlsClient } from './chrome-tls-client';

export interface HttpEngineOptions {
  policy: EgressPolicy;
  /** Shared keep-alive pool from `createEgressAgent(policy)`; the engine destroys it on `close()`. */
  agent: Agent;
  /** Redirects followed before the page fails with `too_many_redirects`. Default: 10. */
  maxRedirects?: number;
  /**
   * HTTPS as Chrome speaks it (its ClientHello and HTTP/2), for every https hop; the engine closes
   * it on `close()`. Without it https goes through undici, whose TLS is Node's.
   */
  tls?: ChromeTlsClient;
}

/** One request of the Fetch API to a target, as the caller shaped it (method, headers, body). */
export interface HttpExchangeRequest {
  /** Absolute http(s) URL. */
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  /** The browser the request presents: its navigation headers, in its order, for each hop's scheme. */
  identity: BrowserIdentity;
  /** The caller's own headers (see `callerRequestHeaders`), over the identity's in their place. */
  headers: Record<string, string>;
  body?: Buffer;
  /** Largest body read, in bytes, as received and decompressed. */
  maxBodyBytes: number;
  /** Whole exchange, redirects and body included, in ms. */
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Sends plain HTTP through this dispatcher instead of the engine's own pool: an upstream proxy's
   * agent (`UpstreamAgents.agentFor`), which keeps the egress policy on the target.
   */
  agent?: Agent;
  /** The upstream proxy of this request (`agent`'s), for the https hops of the TLS client. */
  upstreamProxyUrl?: string;
  /**
   * Whether to download the final body, given its Content-Type; one not wanted is discarded unread
   * and `body` is empty (a crawl takes links and kept HTML only from HTML). Default: every body.
   */
  acceptBody?: (contentType: string | undefined) => boolean;
  /** Reads the final body as it arrives instead of buffering it (`SafeRequestOptions.readBody`); `body` is then empty. */
  readBody?: SafeRequestOptions['readBody'];
}

/** What the target answered, after redirects. */
export interface HttpExchangeResponse {
  status: number;
  finalUrl: string;
  redirectChain: string[];
  /** The final response's headers (lower-case names; `set-cookie` as a list). */
  headers: Record<string, string | string[]>;
  contentType?: string;
  /** Decompressed body. */
  body: Buffer;
}

/**
 * Plain HTTP for the `basic` and `premium` tiers (`HttpFetchEngine`): one request as the caller
 * shaped it, with the headers of the identity's Chrome in Chrome's order and case, through the
 * egress policy, on one keep-alive pool for every page the worker fetches.
 */
export class HttpEngine {
  private closed?: Promise<void>;

  constructor(private readonly options: HttpEngineOptions) {}

  /**
   * Sends one request exactly as given (method, headers, body), following redirects under the
   * egress policy, and reads every body `acceptBody` wants (by default all: the Fetch API answers
   * any content).
   *
   * @throws EgressError when the target could not be reached, or its body is over `maxBodyBytes`.
   */
  async exchange(request: HttpExchangeRequest): Promise<HttpExchangeResponse> {
    const { tls } = this.options;
    const response = await safeRequest(this.options.policy, request.agent ?? this.options.agent, request.url, {
      method: request.method,
      headers: request.headers,
      // Per hop: a redirect from http to https gains the client hints Chrome sends only to secure
      // origins, and the TLS client's HTTP/2. Undici decodes what Chrome offers over http, and over
      // https all but zstd.
      wireHeaders: (target, headers) => {
        if (target.protocol !== 'https:') return navigationHeaders(request.identity, target, headers, 'http/1.1');
        if (tls) return navigationHeaders(request.identity, target, headers, 'h2');
        return navigationHeaders(request.identity, target, headers, 'http/1.1', 'gzip, deflate, br');
      },
      senderFor: (target) => (tls && target.protocol === 'https:' ? tls.senderFor(request.upstreamProxyUrl) : undefined),
      body: request.body,
      maxRedirects: this.options.maxRedirects ?? 10,
      maxBodyBytes: request.maxBodyBytes,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      acceptBody: request.acceptBody,
      readBody: request.readBody,
    });
    return {
      status: response.status,
      finalUrl: response.url,
      redirectChain: response.redirectChain,
      headers: response.headers,
      contentType: response.contentType,
      body: response.body,
    };
  }

  /** Cuts pooled connections and anything still loading: callers settle their work before closing. */
  close(): Promise<void> {
    this.closed ??= Promise.all([this.options.agent.destroy(), this.options.tls?.close()]).then(() => undefined);
    return this.closed;
  }
}
