import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '@trawl/observability';
import { FetchError, FetchErrorCode } from '../fetch/fetch.errors';
import { isFetchMethod } from '../fetch/fetch.routes';
import { UsageHeaders } from '../fetch/usage-headers';
import { isClientError } from '../limits/client-address-health';
import { LimitError, LimitErrorCode } from '../limits/limits.errors';
import { readBodyWithin } from '../problems/request-body';
import { RequestError, RequestErrorCode } from '../problems/request.errors';
import { parseProxyAuthorization, proxiedFetchQuery, ProxyCredentials } from './proxy-credentials';
import type { ProxiedKind, ProxyModeMetrics } from './proxy-mode.metrics';
import type { ClientAddressGuard, ProxyAuthenticator, ProxyFetcher } from './proxy-mode.ports';
import { logRefusal } from '../problems/problem-log';
import { proxyProblemOf } from './proxy-problems';

/** Where a request inside a CONNECT tunnel goes, and who opened the tunnel. */
export interface TunnelContext {
  /** `https://host[:port]` (or `http://…` for plain HTTP in the tunnel), from the CONNECT target. */
  origin: string;
  credentials: ProxyCredentials;
  kind: ProxiedKind;
  /** The client's address, from the CONNECT's socket (a TLS stream over a tunnel has none of its own). */
  clientAddress: string | undefined;
}

export interface ProxiedRequestOptions {
  /** Largest request body forwarded, in bytes (`HTTP_BODY_LIMIT_BYTES`). */
  bodyLimitBytes: number;
  /** Price of one credit, in US dollars, for `X-Request-Cost`. */
  creditPriceUsd: number;
}

/**
 * One proxied request, plain (absolute-form) or inside a tunnel: credentials, the target URL, the
 * body, then the Fetch pipeline with the password's options; answers as the Fetch endpoint does
 * (`Zr-` headers, usage headers on every answer, problem+json on refusal).
 */
export class ProxiedRequestHandler {
  constructor(
    private readonly authenticator: ProxyAuthenticator,
    private readonly fetcher: ProxyFetcher,
    private readonly addresses: ClientAddressGuard | undefined,
    private readonly metrics: ProxyModeMetrics,
    private readonly logger: Logger,
    private readonly options: ProxiedRequestOptions,
  ) {}

  /** Answers `request` on `response`; never throws. */
  async handle(request: IncomingMessage, response: ServerResponse, tunnel?: TunnelContext): Promise<void> {
    const usage = new UsageHeaders(randomUUID(), this.options.creditPriceUsd);
    const address = tunnel ? tunnel.clientAddress : request.socket.remoteAddress;
    const clientGone = new AbortController();
    response.once('close', () => {
      if (!response.writableFinished) clientGone.abort();
    });
    const kind = tunnel?.kind ?? 'http';
    let blocked = false;
    let clientError = false;
    let tenantId: string | undefined;
    try {
      if (this.addresses && address) blocked = await assertNotBlocked(this.addresses, address);
      const credentials = tunnel?.credentials ?? parseProxyAuthorization(request.headers['proxy-authorization']);
      const tenant = await this.authenticator.authenticate(credentials.apiKey);
      tenantId = tenant.tenantId;
      const method = request.method;
      if (!isFetchMethod(method)) return await this.fetcher.refuseMethod(tenant.tenantId, method, usage);
      const url = tunnel ? `${tunnel.origin}${originFormOf(request.url)}` : absoluteTargetOf(request.url);
      const body = method === 'GET' ? undefined : await readBody(request, this.options.bodyLimitBytes);
      const answer = await this.fetcher.fetch({
        tenant,
        method,
        query: proxiedFetchQuery(credentials.params, url),
        headers: request.headers,
        body,
        clientGone: clientGone.signal,
        usage,
        via: 'proxy_mode',
      });
      response.writeHead(answer.status, {
        ...answer.headers,
        ...usage.toHeaders(),
        'content-type': answer.contentType,
        'content-length': String(answer.body.length),
      });
      response.end(answer.body);
      this.metrics.requests.inc({ kind, outcome: 'answered' });
    } catch (error) {
      if (isBlocked(error)) blocked = true;
      const problem = proxyProblemOf(error, this.logger);
      clientError = isClientError(problem.status, false);
      this.metrics.requests.inc({ kind, outcome: problem.code });
      // Proxy mode has no route: the answer's `instance` and the request id find the line.
      const fields = {
        instance: problem.instance,
        status: problem.status,
        code: problem.code,
        method: request.method ?? '',
        route: 'proxy_mode',
      };
      logRefusal(
        this.logger,
        { ...fields, ...(tenantId ? { tenant_id: tenantId } : {}), request_id: usage.requestId, kind },
        'proxied request refused',
      );
      if (response.headersSent || response.destroyed) {
        response.destroy();
        return;
      }
      // A body we did not read would be taken for the next request on this connection.
      if (error instanceof RequestError && error.code === RequestErrorCode.PayloadTooLarge) response.shouldKeepAlive = false;
      response.writeHead(problem.status, { ...problem.headers, ...usage.toHeaders(), 'content-length': String(problem.body.length) });
      response.end(problem.body);
    } finally {
      if (this.addresses && address && !blocked) {
        this.addresses.record(address, clientError);
      }
    }
  }
}

/** @returns false; throws `BLK0001` (with `Retry-After`) when the address is blocked. */
export async function assertNotBlocked(addresses: ClientAddressGuard, address: string): Promise<false> {
  const until = await addresses.blockedUntil(address);
  if (!until) return false;
  const retryAfter = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
  throw new LimitError(
    LimitErrorCode.AddressBlocked,
    `Your address is blocked until ${until.toISOString()} for exceeding the maximum error rate; fix the failing requests before retrying.`,
    { 'retry-after': String(retryAfter) },
  );
}

function isBlocked(error: unknown): boolean {
  return error instanceof LimitError && error.code === LimitErrorCode.AddressBlocked;
}

/** A plain proxied request names its target in absolute form (RFC 9112 §3.2.2). */
function absoluteTargetOf(target: string | undefined): string {
  if (target !== undefined && /^https?:\/\//i.test(target)) return target;
  throw new FetchError(
    FetchErrorCode.InvalidParameters,
    'This port is a forward proxy: send absolute-form requests (`GET http://host/path`) or CONNECT; the Fetch API itself is /v1/ on the API port.',
    { parameter: 'url' },
  );
}

/**
 * The path and query of a request inside a tunnel. An absolute-form target there keeps only its
 * path: the tunnel's CONNECT authority decides the host, so one tunnel cannot reach another host.
 */
function originFormOf(target: string | undefined): string {
  if (target?.startsWith('/')) return target;
  if (target !== undefined && /^https?:\/\//i.test(target)) {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  }
  throw new FetchError(FetchErrorCode.InvalidParameters, 'Send requests in the tunnel with a path (`GET /path`).', { parameter: 'url' });
}

async function readBody(request: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  const body = await readBodyWithin(request, limit, request.headers['content-length']);
  return body.length === 0 ? undefined : body;
}
