import type { IncomingHttpHeaders } from 'node:http';
import { createTransport, fetch as wreqFetch, type Response, type Transport } from 'wreq-js';
import { EgressError, EgressErrorCode, type HopInit, type HopResponse, type HopSender } from '@trawl/egress';
import type { EgressFailure, EgressProxy, ProxySession } from '../egress-proxy';
import { CHROME_TLS } from './chrome-tls';

export interface ChromeTlsClientOptions {
  /**
   * The egress proxy every connection goes through (one of its own: its failures are this client's,
   * see {@link ChromeTlsClient.recordFailure}). It applies the egress policy at connect time and
   * chains to an upstream proxy, as for Chromium.
   */
  proxy: EgressProxy;
  /** A PEM file of authorities trusted besides the public roots (`TLS_EXTRA_CA_FILE`). Default: none. */
  extraCaFile?: string;
  /** TCP and TLS connect time limit, in ms. Default: 10,000. */
  connectTimeoutMs?: number;
}

/** A route's proxy session and the connection pool over it. */
interface Route {
  session: ProxySession;
  transport: Transport;
}

/** Failures remembered to tell why a connection failed; beyond this the oldest is forgotten. */
const REMEMBERED_FAILURES = 1_000;

/**
 * HTTPS as Chrome speaks it, for the HTTP engine: Chrome's ClientHello and HTTP/2 preface
 * ({@link CHROME_TLS}, through wreq's BoringSSL), headers exactly as given and in that order. Node's
 * own TLS cannot send them (its ClientHello is OpenSSL's, and sites fingerprint it).
 *
 * wreq resolves names itself, so every connection goes through the worker's egress proxy, as
 * Chromium's do: the proxy resolves once, checks the address under the egress policy and connects to
 * that address (or asks the upstream proxy to), at connect time. One pool per route (direct, or each
 * upstream proxy), kept for the worker's life.
 */
export class ChromeTlsClient {
  private readonly routes = new Map<string, Promise<Route>>();
  private readonly failures = new Map<string, { code: EgressErrorCode; at: number }>();
  private closed?: Promise<void>;

  constructor(private readonly options: ChromeTlsClientOptions) {}

  /** Hop sender for `safeRequest`: through `upstreamProxyUrl`, or directly. */
  senderFor(upstreamProxyUrl?: string): HopSender {
    return { send: (target, init) => this.send(upstreamProxyUrl, target, init) };
  }

  /** Told by the egress proxy of each failure (refusal, DNS failure, connect failure). */
  recordFailure(failure: EgressFailure): void {
    const key = `${failure.host}:${failure.port}`;
    this.failures.delete(key);
    this.failures.set(key, { code: failure.code, at: failure.at });
    if (this.failures.size > REMEMBERED_FAILURES) this.failures.delete(this.failures.keys().next().value!);
  }

  /** Closes every pool and proxy session. Safe to call twice. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      const routes = await Promise.allSettled(this.routes.values());
      for (const route of routes) {
        if (route.status !== 'fulfilled') continue;
        await route.value.transport.close().catch(() => undefined);
        await route.value.session.close();
      }
    })();
    return this.closed;
  }

  private async send(upstream: string | undefined, target: URL, init: HopInit): Promise<HopResponse> {
    if (this.closed) throw new EgressError(EgressErrorCode.ConnectFailed, 'The HTTP engine is closed');
    const route = await this.route(upstream);
    const started = Date.now();
    try {
      const response = await wreqFetch(target.href, {
        transport: route.transport,
        method: init.method,
        headers: pairs(init.headers),
        body: init.body,
        signal: init.signal,
        redirect: 'manual',
        // Only the headers given, in their order: the identity's Chrome wrote them.
        disableDefaultHeaders: true,
        // The caller's deadline stops the request (through `signal`); this is only wreq's own default.
        timeout: 24 * 60 * 60_000,
      });
      return hopResponse(response);
    } catch (error) {
      if (init.signal.aborted) throw error;
      const port = Number(target.port || 443);
      const failure = this.failures.get(`${target.hostname.toLowerCase().replace(/^\[|\]$/g, '')}:${port}`);
      if (failure && failure.at >= started) {
        throw new EgressError(failure.code, `The egress proxy did not connect ${target.host} (${failure.code})`, { cause: error });
      }
      throw new EgressError(EgressErrorCode.ConnectFailed, `The connection to ${target.host} failed`, { cause: withTlsCode(error) });
    }
  }

  private route(upstream: string | undefined): Promise<Route> {
    const key = upstream ?? '';
    let route = this.routes.get(key);
    if (!route) {
      route = (async () => {
        // wreq's BoringSSL takes roots beyond its bundled ones only from SSL_CERT_FILE ("combined"
        // verifies with both), read when a pool is made.
        if (this.options.extraCaFile) process.env.SSL_CERT_FILE = this.options.extraCaFile;
        const session = await this.options.proxy.openSession({ upstream: upstream === undefined ? undefined : () => upstream });
        const transport = await createTransport({
          proxy: session.url,
          browser: 'chrome_149',
          emulation: CHROME_TLS,
          trustStore: 'combined',
          connectTimeout: this.options.connectTimeoutMs ?? 10_000,
          // What undici keeps idle connections for in the HTTP engine's other pool.
          poolIdleTimeout: 4_000,
        });
        return { session, transport };
      })();
      // A route that failed to open is tried again by the next request.
      route.catch(() => this.routes.delete(key));
      this.routes.set(key, route);
    }
    return route;
  }
}

/**
 * wreq names a refused certificate or a botched handshake by BoringSSL's reason in its message; the
 * worker tells those apart by Node's error codes (`RESP008`), so the cause gets the matching one.
 */
function withTlsCode(error: unknown): unknown {
  const message = String((error as Error)?.message ?? error);
  const code = /CERTIFICATE_VERIFY_FAILED|CERT_|certificate/i.test(message)
    ? 'CERT_UNTRUSTED'
    : /WRONG_VERSION_NUMBER|HANDSHAKE_FAILURE|TLSV1_ALERT|UNSUPPORTED_PROTOCOL/i.test(message)
      ? 'EPROTO'
      : undefined;
  return code ? Object.assign(new Error(message, { cause: error }), { code }) : error;
}

function pairs(headers: HopInit['headers']): [string, string][] {
  if (!Array.isArray(headers)) return Object.entries(headers);
  const result: [string, string][] = [];
  for (let i = 0; i < headers.length; i += 2) result.push([headers[i], headers[i + 1]]);
  return result;
}

/** wreq's answer in undici's shape; its body is already decoded (wreq undoes gzip, br and zstd). */
function hopResponse(response: Response): HopResponse {
  const headers: IncomingHttpHeaders = {};
  response.headers.forEach((value, name) => {
    if (name === 'set-cookie') (headers['set-cookie'] ??= []).push(value);
    else headers[name] = headers[name] === undefined ? value : `${String(headers[name])}, ${value}`;
  });
  const stream = response.body;
  const reader = stream?.getReader();
  const body = {
    async *[Symbol.asyncIterator](): AsyncGenerator<Buffer> {
      if (!reader) return;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        yield Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    },
    destroy: () => void reader?.cancel().catch(() => undefined),
    dump: async () => {
      await reader?.cancel().catch(() => undefined);
    },
  };
  return { statusCode: response.status, headers, body, decoded: true };
}
