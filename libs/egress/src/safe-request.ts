import type { IncomingHttpHeaders } from 'node:http';
import { request, type Agent } from 'undici';
import { enforcesPolicy } from './egress-agent';
import type { EgressPolicy } from './egress-policy';
import { EgressError, EgressErrorCode } from './errors';
import { decodeBody, decodedBodyChunks, readCappedBody } from './response-body';
import { isIpLiteral } from './url-normalization';

export interface SafeRequestOptions {
  /** Default: GET. */
  method?: string;
  /** Request headers; `accept-encoding: gzip, deflate, br` is added unless set here (or `wireHeaders` is given). */
  headers?: Record<string, string>;
  /**
   * Writes each hop's headers as sent, in order (a flat `[name, value, …]` list), from `headers` as
   * they stand at that hop (origin-bound and body headers already dropped where a redirect requires).
   * For a client that must send its headers in a browser's order and case, and decide per hop what
   * the hop's scheme allows. Default: `headers` as an object, with `accept-encoding` added.
   */
  wireHeaders?: (target: URL, headers: Record<string, string>) => string[];
  /** The sender of a hop, when not undici (see {@link HopSender}); asked per hop. Default: undici for every hop. */
  senderFor?: (target: URL) => HopSender | undefined;
  body?: string | Buffer;
  /** Redirects followed before giving up with `TooManyRedirects`. Default: 10. */
  maxRedirects?: number;
  /** Cap on the body, in bytes, both as received and decompressed. Default: 10 MiB. */
  maxBodyBytes?: number;
  /** Deadline for the whole request, redirects and body included, in ms. Default: 30,000. */
  timeoutMs?: number;
  /** Aborts the request; the signal's reason is thrown as is. */
  signal?: AbortSignal;
  /**
   * Asked with the final response's content type; when it answers false the body is not read (the
   * socket is released) and `body` is empty. Default: every body is read.
   */
  acceptBody?: (contentType: string | undefined) => boolean;
  /**
   * Reads the final body as it arrives, decoded and capped at `maxBodyBytes` (see
   * `decodedBodyChunks`), instead of `safeRequest` buffering it: for a reader that parses as it goes
   * and must not hold the whole body. `body` is then empty. Asked with the final response's status
   * and content type. Default: the body is buffered.
   */
  readBody?: (chunks: AsyncIterable<Buffer>, response: { status: number; contentType: string | undefined }) => Promise<void>;
}

/**
 * Sends one hop of a `safeRequest` another way than undici's (a client that must speak like a
 * browser over TLS). It must apply the egress policy at connect time itself, answer the hop as is
 * (never follow a redirect) and stop when `signal` aborts; `safeRequest` keeps the redirect rules.
 */
export interface HopSender {
  send(target: URL, init: HopInit): Promise<HopResponse>;
}

export interface HopInit {
  method: string;
  /** As `wireHeaders` wrote them (a flat `[name, value, …]` list), or the header object. */
  headers: string[] | Record<string, string>;
  body?: string | Buffer;
  signal: AbortSignal;
}

/** One hop's answer, in undici's shape. */
export interface HopResponse {
  statusCode: number;
  headers: IncomingHttpHeaders;
  /** Read once; `destroy()` stops the download (a body over the cap). */
  body: AsyncIterable<Buffer> & { destroy(): void; dump(): Promise<void> };
  /** True when the sender already undid `content-encoding` (the header is kept, as sent). */
  decoded?: boolean;
}

export interface SafeResponse {
  status: number;
  /** Headers of the final response as sent (`content-encoding` included, although `body` is decoded). */
  headers: Record<string, string | string[]>;
  /** The URL that gave this response, after redirects. */
  url: string;
  /** The URLs that answered with a redirect, in order; empty when there was none. */
  redirectChain: string[];
  contentType?: string;
  /** The body, decompressed (gzip, deflate, br). */
  body: Buffer;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const BODY_HEADERS = ['content-type', 'content-length', 'content-encoding', 'transfer-encoding'];
// Like fetch, credentials set for one origin are not handed to another.
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'host'];
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
// Our own mistakes (bad arguments, agent closed during shutdown), not the remote's: thrown as is.
const CALLER_ERROR_CODES = new Set([
  'UND_ERR_INVALID_ARG',
  'UND_ERR_NOT_SUPPORTED',
  'UND_ERR_DESTROYED',
  'UND_ERR_CLOSED',
  'ERR_INVALID_ARG_TYPE',
  'ERR_INVALID_ARG_VALUE',
]);

/**
 * Fetches a stranger's URL under the egress policy. Redirects are followed here, not by undici,
 * so every hop is checked again: its scheme, a literal IP host directly, and a named host through
 * the agent's lookup at connect time (use an agent from `createEgressAgent(policy)`; with any
 * other agent names are checked before the request, which does not stop DNS rebinding).
 *
 * @throws EgressError for a refused or failed request (see `EgressErrorCode`); the caller's abort
 *   reason when `signal` aborts.
 */
export async function safeRequest(
  policy: EgressPolicy,
  agent: Agent,
  url: string | URL,
  options: SafeRequestOptions = {},
): Promise<SafeResponse> {
  const { maxRedirects = 10, maxBodyBytes = 10 * 1024 * 1024, timeoutMs = 30_000 } = options;
  let target = parseUrl(url);
  // One controller aborted by the deadline or the caller's signal: what `AbortSignal.any` does,
  // without its per-call bookkeeping (every page fetch goes through here).
  const stopper = new AbortController();
  const signal = stopper.signal;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stopper.abort();
  }, timeoutMs);
  const onCallerAbort = (): void => stopper.abort(options.signal?.reason);
  if (options.signal?.aborted) onCallerAbort();
  else options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  const { wireHeaders } = options;
  let headers = wireHeaders ? lowerCased(options.headers ?? {}) : withAcceptEncoding(options.headers ?? {});
  const redirectChain: string[] = [];
  try {
    for (;;) {
      const sender = options.senderFor?.(target);
      // A sender applies the policy at connect time itself; the scheme is checked here for every hop.
      if (sender) assertWebScheme(target);
      else await checkHop(policy, agent, target);
      const sent = wireHeaders ? wireHeaders(target, headers) : headers;
      const response: HopResponse = sender
        ? await sender.send(target, { method, headers: sent, body, signal })
        : await undiciHop(agent, target, { method, headers: sent, body, signal });
      const location = REDIRECT_STATUSES.has(response.statusCode) ? first(response.headers.location) : undefined;
      if (location === undefined) {
        const final = await readFinalResponse(response, method, maxBodyBytes, options);
        return { ...final, url: target.href, redirectChain };
      }
      await response.body.dump();
      if (redirectChain.length >= maxRedirects) {
        throw new EgressError(EgressErrorCode.TooManyRedirects, `More than ${maxRedirects} redirects`);
      }
      redirectChain.push(target.href);
      const next = parseUrl(location, target);
      if (redirectBecomesGet(response.statusCode, method)) {
        method = 'GET';
        body = undefined;
        headers = without(headers, BODY_HEADERS);
      }
      if (next.origin !== target.origin) headers = without(headers, ORIGIN_BOUND_HEADERS);
      target = next;
    }
  } catch (error) {
    if (options.signal?.aborted) throw options.signal.reason;
    if (error instanceof EgressError) throw error;
    if (timedOut) {
      throw new EgressError(EgressErrorCode.Timeout, `No complete answer within ${timeoutMs} ms`, { cause: error });
    }
    throw classifyNetworkError(error, target.host);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}

type FinalResponse = Omit<SafeResponse, 'url' | 'redirectChain'>;

// Methods a client may send again when no answer came: nothing of theirs happened at the target.
const RESENDABLE_METHODS = new Set(['GET', 'HEAD']);

/**
 * One hop over undici. A pooled keep-alive connection can be closed by the server in the instant
 * the request goes out on it (the server's idle timer and ours race); the request then fails before
 * any answer although the site is fine. Like Chrome and Go's client, a GET or HEAD that failed so on
 * a connection that had already carried an answer is sent once more; a fresh connection that fails
 * is the site's answer and is not retried.
 */
async function undiciHop(agent: Agent, target: URL, init: HopInit): Promise<HopResponse> {
  const options = { dispatcher: agent, method: init.method, headers: init.headers, body: init.body, signal: init.signal };
  try {
    return await request(target, options);
  } catch (error) {
    if (!RESENDABLE_METHODS.has(init.method) || init.signal.aborted || !closedWhileReused(error)) throw error;
    return request(target, options);
  }
}

/** undici's "other side closed" on a socket that had read earlier answers: a stale keep-alive connection. */
function closedWhileReused(error: unknown): boolean {
  const failure = error as { code?: unknown; socket?: { bytesRead?: unknown } } | null;
  return failure?.code === 'UND_ERR_SOCKET' && typeof failure.socket?.bytesRead === 'number' && failure.socket.bytesRead > 0;
}

async function readFinalResponse(
  response: HopResponse,
  method: string,
  maxBodyBytes: number,
  { acceptBody, readBody }: Pick<SafeRequestOptions, 'acceptBody' | 'readBody'>,
): Promise<FinalResponse> {
  const contentType = first(response.headers['content-type']);
  const headers = definedHeaders(response.headers);
  if (method === 'HEAD' || !(acceptBody?.(contentType) ?? true)) {
    await response.body.dump();
    return { status: response.statusCode, headers, contentType, body: Buffer.alloc(0) };
  }
  // A decoding sender's content-length is the encoded size, and its bytes are already decoded.
  const declared = response.decoded ? undefined : first(response.headers['content-length']);
  if (readBody) {
    const encoding = response.decoded ? undefined : first(response.headers['content-encoding']);
    try {
      await readBody(decodedBodyChunks(response.body, encoding, maxBodyBytes, declared), { status: response.statusCode, contentType });
    } finally {
      // A reader that stopped early (it had enough) leaves the rest: discarded, or the socket closed.
      await response.body.dump().catch(() => undefined);
    }
    return { status: response.statusCode, headers, contentType, body: Buffer.alloc(0) };
  }
  const raw = await readCappedBody(response.body, maxBodyBytes, declared);
  const body = response.decoded ? raw : await decodeBody(raw, first(response.headers['content-encoding']), maxBodyBytes);
  return { status: response.statusCode, headers, contentType, body };
}

/** Fetch's rule: 303 (except after HEAD), and 301/302 after POST, continue as GET without body. */
function redirectBecomesGet(status: number, method: string): boolean {
  return status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
}

async function checkHop(policy: EgressPolicy, agent: Agent, target: URL): Promise<void> {
  // The agent's lookup never runs for a literal IP, and a foreign agent has no such lookup at all.
  if (isIpLiteral(target.hostname) || !enforcesPolicy(agent, policy)) {
    await policy.assertUrlAllowed(target);
  } else {
    assertWebScheme(target);
  }
}

function assertWebScheme(target: URL): void {
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    const message = `Only http and https URLs can be fetched, not ${target.protocol}`;
    throw new EgressError(EgressErrorCode.InvalidUrl, message);
  }
}

function parseUrl(url: string | URL, base?: URL): URL {
  try {
    return new URL(url, base);
  } catch (error) {
    const what = base ? 'The redirect location' : 'The URL';
    throw new EgressError(EgressErrorCode.InvalidUrl, `${what} is not a valid URL`, { cause: error });
  }
}

function classifyNetworkError(error: unknown, host: string): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CALLER_ERROR_CODES.has(code)) return error;
  if (typeof code === 'string' && TIMEOUT_CODES.has(code)) {
    return new EgressError(EgressErrorCode.Timeout, `${host} did not answer in time`, { cause: error });
  }
  return new EgressError(EgressErrorCode.ConnectFailed, `The connection to ${host} failed`, { cause: error });
}

function withAcceptEncoding(headers: Record<string, string>): Record<string, string> {
  // A plain loop: the entries/fromEntries/spread version showed up in the worker's profile.
  const result: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br' };
  for (const name of Object.keys(headers)) result[name.toLowerCase()] = headers[name];
  return result;
}

function lowerCased(headers: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of Object.keys(headers)) result[name.toLowerCase()] = headers[name];
  return result;
}

function without(headers: Record<string, string>, names: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function definedHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) result[name] = value;
  return result;
}
