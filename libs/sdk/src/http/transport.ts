import { TrawlAbortError, TrawlApiError, TrawlConnectionError, type Problem } from '../errors';
import { ConcurrencyGate } from './concurrency-gate';
import { backoffMs, DEFAULT_RETRY, isRetryableStatus, retryAfterMs, type RetryOptions } from './retry-policy';

/** A query parameter's value: lists are sent comma-joined, booleans as `true`/`false`, undefined left out. */
export type QueryValue = string | number | boolean | readonly string[] | undefined;

/** One API call, as the resources describe it to the transport. */
export interface ApiCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD' | 'PATCH';
  /** Path and its parameters already encoded (`/v1/crawls/abc`), or an absolute URL (a signed upload URL). */
  path: string;
  query?: Record<string, QueryValue>;
  /** A JSON body. */
  json?: unknown;
  /** A raw body with its media type (a CSV upload, a body forwarded to a Fetch target). */
  body?: { data: string | Uint8Array; contentType: string };
  headers?: Record<string, string>;
  /**
   * Whether sending it twice is harmless: reads, actions that end in the same state (stop, pause),
   * creates carrying an `Idempotency-Key`. Only these are retried after a 429, 503 or a broken
   * connection; anything else fails at the first error, since the server may have acted on it.
   */
  retrySafe: boolean;
  /** Counted against the client's concurrency cap (the Fetch API's). */
  gated?: boolean;
  /** False for URLs that carry their own authority (signed downloads and uploads). Default true. */
  authenticated?: boolean;
  signal?: AbortSignal;
}

/** What a retry was for, given to `onRetry`. */
export interface RetryEvent {
  method: string;
  path: string;
  /** 1 for the first retry. */
  retry: number;
  delayMs: number;
  /** The status that made the retry, or undefined after a broken connection. */
  status?: number;
  error?: unknown;
}

export interface TransportOptions {
  apiKey: string;
  baseUrl: string;
  retry?: RetryOptions;
  /** Most Fetch API calls in flight at once [5]; lowered further by the account's `Concurrency-Limit`. */
  maxConcurrency?: number;
  /** Longest one attempt may take, in milliseconds [200,000: past the server's own 3-minute cap]. */
  timeoutMs?: number;
  userAgent?: string;
  /** The `fetch` to use [`globalThis.fetch`]. */
  fetch?: typeof fetch;
  onRetry?: (event: RetryEvent) => void;
}

/**
 * Sends API calls: the key in `X-API-Key`, retries with backoff for what is safe to repeat, the
 * concurrency cap, and error answers turned into `TrawlApiError`. Never logs; the key never
 * appears in an error.
 */
export class Transport {
  readonly gate: ConcurrencyGate;
  private readonly retry: Required<RetryOptions>;
  private readonly fetchImpl: typeof fetch;
  private readonly baseUrl: string;

  constructor(private readonly options: TransportOptions) {
    if (options.apiKey === '') throw new TypeError('apiKey is empty');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.gate = new ConcurrencyGate(options.maxConcurrency ?? 5);
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** The answer of a successful call (2xx), body unread. */
  async send(call: ApiCall): Promise<Response> {
    for (let retry = 0; ; retry++) {
      const release = call.gated
        ? await this.gate.acquire(call.signal).catch((reason: unknown) => Promise.reject(new TrawlAbortError(reason)))
        : undefined;
      let response: Response;
      try {
        response = await this.attempt(call);
      } catch (error) {
        release?.();
        if (call.signal?.aborted) throw new TrawlAbortError(call.signal.reason);
        const delayMs = call.retrySafe && retry < this.retry.maxRetries ? backoffMs(retry + 1, undefined, this.retry) : undefined;
        if (delayMs === undefined)
          throw new TrawlConnectionError(`${call.method} ${describePath(call.path)}: ${messageOf(error)}`, { cause: error });
        this.options.onRetry?.({ method: call.method, path: describePath(call.path), retry: retry + 1, delayMs, error });
        await sleep(delayMs, call.signal);
        continue;
      }
      if (call.gated) this.gate.observe(response.headers);
      release?.();
      if (response.ok) return response;
      const asked = retryAfterMs(response.headers.get('retry-after'));
      const delayMs =
        call.retrySafe && isRetryableStatus(response.status) && retry < this.retry.maxRetries
          ? backoffMs(retry + 1, asked, this.retry)
          : undefined;
      if (delayMs === undefined) throw await apiError(response, call);
      await response.body?.cancel().catch(() => undefined);
      this.options.onRetry?.({ method: call.method, path: describePath(call.path), retry: retry + 1, delayMs, status: response.status });
      await sleep(delayMs, call.signal);
    }
  }

  /** The JSON body of a successful call. */
  async json<T>(call: ApiCall): Promise<T> {
    const response = await this.send(call);
    return (await response.json()) as T;
  }

  /** The absolute URL of `path` with `query`. */
  url(path: string, query?: Record<string, QueryValue>): URL {
    const url = /^https?:\/\//.test(path) ? new URL(path) : new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined) continue;
      url.searchParams.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    return url;
  }

  private async attempt(call: ApiCall): Promise<Response> {
    const headers: Record<string, string> = {
      'user-agent': this.options.userAgent ?? 'trawl-sdk-node',
      accept: 'application/json, application/problem+json;q=0.9, */*;q=0.8',
      ...call.headers,
    };
    if (call.authenticated !== false) headers['x-api-key'] = this.options.apiKey;
    let body: string | Uint8Array | undefined;
    if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.body !== undefined) {
      headers['content-type'] = call.body.contentType;
      body = call.body.data;
    }
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 200_000);
    const signal = call.signal ? AbortSignal.any([call.signal, timeout]) : timeout;
    return this.fetchImpl(this.url(call.path, call.query), { method: call.method, headers, body, signal, redirect: 'follow' });
  }
}

async function apiError(response: Response, call: ApiCall): Promise<TrawlApiError> {
  const text = await response.text().catch(() => '');
  let problem: Problem = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) problem = parsed as Problem;
  } catch {
    if (text.trim() !== '') problem = { detail: text.slice(0, 500) };
  }
  const retryAfter = retryAfterMs(response.headers.get('retry-after'));
  return new TrawlApiError(response.status, problem, {
    method: call.method,
    path: describePath(call.path),
    requestId: response.headers.get('x-request-id') ?? undefined,
    retryAfterSeconds: retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000),
  });
}

/** A path for messages: a signed URL's query (its signature) left out. */
function describePath(path: string): string {
  return path.replace(/\?.*$/, '');
}

function messageOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    if (error.name === 'TimeoutError') return 'no answer within the timeout';
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}

/** Waits `ms`, or rejects with a `TrawlAbortError` when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new TrawlAbortError(signal.reason));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new TrawlAbortError(signal?.reason));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
