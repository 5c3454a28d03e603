import type { Agent } from 'undici';
import { EgressPolicy, safeRequest } from '@trawl/egress';

/**
 * What Chrome 138 on Windows sends for a top-level navigation typed into the address bar. Sites
 * answer a bare client (no accept, no client hints) with bot walls or stripped pages.
 */
export const BROWSER_HEADERS: Readonly<Record<string, string>> = {
  'sec-ch-ua': '"Not)A;Brand";v="8", "Chromium";v="138", "Google Chrome";v="138"',
  'sec-ch-ua-mobile': '?0',
  'sec-ch-ua-platform': '"Windows"',
  'upgrade-insecure-requests': '1',
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Safari/537.36',
  accept:
    'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7',
  'sec-fetch-site': 'none',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-user': '?1',
  'sec-fetch-dest': 'document',
  // Only what safeRequest can decode: Node 20's zlib has no zstd.
  'accept-encoding': 'gzip, deflate, br',
  'accept-language': 'en-US,en;q=0.9',
  priority: 'u=0, i',
};

/** The same navigation from Chrome 138 on Android, for `device=mobile` (sites serve their mobile page). */
export const MOBILE_BROWSER_HEADERS: Readonly<Record<string, string>> = {
  ...BROWSER_HEADERS,
  'sec-ch-ua-mobile': '?1',
  'sec-ch-ua-platform': '"Android"',
  'user-agent': 'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/138.0.0.0 Mobile Safari/537.36',
};

export interface HttpEngineOptions {
  policy: EgressPolicy;
  /** Shared keep-alive pool from `createEgressAgent(policy)`; the engine destroys it on `close()`. */
  agent: Agent;
  /** Redirects followed before the page fails with `too_many_redirects`. Default: 10. */
  maxRedirects?: number;
}

/** One request of the Fetch API to a target, as the caller shaped it (method, headers, body). */
export interface HttpExchangeRequest {
  /** Absolute http(s) URL. */
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Sent as given (see `targetRequestHeaders` for the browser headers merged under the caller's). */
  headers: Record<string, string>;
  body?: Buffer;
  /** Largest body read, in bytes, as received and decompressed. */
  maxBodyBytes: number;
  /** Whole exchange, redirects and body included, in ms. */
  timeoutMs: number;
  signal?: AbortSignal;
  /**
   * Sends through this dispatcher instead of the engine's own pool: an upstream proxy's agent
   * (`UpstreamAgents.agentFor`), which keeps the egress policy on the target.
   */
  agent?: Agent;
  /**
   * Whether to download the final body, given its Content-Type; one not wanted is discarded unread
   * and `body` is empty (a crawl takes links and kept HTML only from HTML). Default: every body.
   */
  acceptBody?: (contentType: string | undefined) => boolean;
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
 * shaped it, through the egress policy, on one keep-alive pool for every page the worker fetches.
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
    const response = await safeRequest(this.options.policy, request.agent ?? this.options.agent, request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      maxRedirects: this.options.maxRedirects ?? 10,
      maxBodyBytes: request.maxBodyBytes,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      acceptBody: request.acceptBody,
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
    this.closed ??= this.options.agent.destroy();
    return this.closed;
  }
}
