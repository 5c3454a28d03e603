import type { FetchExtractResponse, FetchPageQuery } from '../generated/api-types';
import type { QueryValue, Transport } from '../http/transport';

/** One browser instruction of `js_instructions` (`{ click: '#more' }`, `{ wait: 500 }`, `{ fill: ['#q', 'shoes'] }`). */
export type JsInstruction = Record<string, string | number | readonly string[]>;

/**
 * Options of a Fetch request: every query parameter of `GET /v1/` but `url`, typed from the API's
 * document. JSON parameters may be given as values (`css_extractor: { title: 'h1' }`), lists as
 * arrays (`outputs: ['emails', 'links']`); the SDK encodes them.
 */
export type FetchOptions = Omit<
  FetchPageQuery,
  'url' | 'apikey' | 'css_extractor' | 'js_instructions' | 'outputs' | 'block_resources' | 'allowed_status_codes'
> & {
  css_extractor?: string | Record<string, string>;
  js_instructions?: string | readonly JsInstruction[];
  outputs?: string | readonly string[];
  block_resources?: string | readonly string[];
  allowed_status_codes?: string | readonly number[];
};

/** A body forwarded to the target (`POST`/`PUT` Fetch requests). */
export interface FetchBody {
  method: 'POST' | 'PUT';
  data: string | Uint8Array;
  /** Default `application/x-www-form-urlencoded`, as the API assumes. */
  contentType?: string;
}

/** A Fetch answer: the page (or JSON, Markdown, an image…) with what the API says of the request. */
export interface FetchResult {
  /** 200, or the target's status with `original_status`/`allowed_status_codes`. */
  status: number;
  headers: Headers;
  contentType: string | undefined;
  body: Uint8Array;
  text(): string;
  json<T = unknown>(): T;
  /** Credits the request cost (`X-Request-Credits`). */
  credits: number | undefined;
  /** What the request cost in money (`X-Request-Cost`), as the API writes it. */
  cost: string | undefined;
  requestId: string | undefined;
  /** The URL the page came from after redirects (`Zr-Final-Url`). */
  finalUrl: string | undefined;
  /** The account's Fetch concurrency after this request. */
  concurrency: { limit: number | undefined; remaining: number | undefined };
}

/** `parsed` and `html` of an `extract=auto` answer. */
export type ExtractResult = FetchExtractResponse;

export class FetchResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Fetches one page (`GET /v1/`, or `POST`/`PUT` with `body`). Retried after a 429 or 503 (never
   * billed): a Fetch request is billed only when it succeeds. A `POST`/`PUT` is not retried, since
   * the target may have acted on it.
   *
   * @throws TrawlApiError with the Fetch error code (`REQS002`, `RESP001`, `CTX0002`, …).
   */
  async page(url: string, options: FetchOptions = {}, request: { body?: FetchBody; signal?: AbortSignal } = {}): Promise<FetchResult> {
    const response = await this.transport.send({
      method: request.body?.method ?? 'GET',
      path: '/v1/',
      query: { url, ...encodeFetchOptions(options) },
      ...(request.body && {
        body: { data: request.body.data, contentType: request.body.contentType ?? 'application/x-www-form-urlencoded' },
      }),
      retrySafe: request.body === undefined,
      gated: true,
      signal: request.signal,
    });
    const body = new Uint8Array(await response.arrayBuffer());
    const headers = response.headers;
    return {
      status: response.status,
      headers,
      contentType: headers.get('content-type') ?? undefined,
      body,
      text: () => new TextDecoder().decode(body),
      json: <T>() => JSON.parse(new TextDecoder().decode(body)) as T,
      credits: numberOf(headers.get('x-request-credits')),
      cost: headers.get('x-request-cost') ?? undefined,
      requestId: headers.get('x-request-id') ?? undefined,
      finalUrl: headers.get('zr-final-url') ?? undefined,
      concurrency: { limit: numberOf(headers.get('concurrency-limit')), remaining: numberOf(headers.get('concurrency-remaining')) },
    };
  }

  /**
   * `extract=auto` on one page of a prepared domain: `{ parsed, html }`.
   *
   * @throws TrawlApiError `REQS007` when the domain is not prepared, `RESP003` when nothing was found.
   */
  async extract(
    url: string,
    options: Pick<FetchOptions, 'js_render' | 'premium_proxy' | 'proxy_country' | 'wait' | 'wait_for' | 'mode' | 'session_id'> = {},
    request: { signal?: AbortSignal } = {},
  ): Promise<ExtractResult> {
    const result = await this.page(url, { ...options, extract: 'auto' }, request);
    return result.json<ExtractResult>();
  }
}

/** Fetch options as query values: JSON parameters serialised, lists comma-joined. */
export function encodeFetchOptions(options: FetchOptions): Record<string, QueryValue> {
  const query: Record<string, QueryValue> = {};
  for (const [name, value] of Object.entries(options) as [string, unknown][]) {
    if (value === undefined) continue;
    if (name === 'css_extractor' || name === 'js_instructions') query[name] = typeof value === 'string' ? value : JSON.stringify(value);
    else if (Array.isArray(value)) query[name] = value.map(String);
    else query[name] = value as QueryValue;
  }
  return query;
}

/**
 * The proxy URL of proxy mode (`http://<apikey>:<options>@<host>:<port>`): point an HTTP client's
 * proxy at it and every request goes through Fetch with `options`. For HTTPS targets the client
 * must trust the operator's proxy-mode CA (or skip certificate checks).
 */
export function proxyModeUrl(
  apiKey: string,
  options: FetchOptions = {},
  proxy: { host: string; port?: number } = { host: 'localhost' },
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(encodeFetchOptions(options))) {
    if (value !== undefined) query.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  return `http://${encodeURIComponent(apiKey)}:${encodeURIComponent(query.toString())}@${proxy.host}:${proxy.port ?? 8001}`;
}

function numberOf(value: string | null): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const number = Number(value);
  return Number.isFinite(number) ? number : undefined;
}
