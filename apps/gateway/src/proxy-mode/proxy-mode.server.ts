import { once } from 'node:events';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { SecureContext, TLSSocket } from 'node:tls';
import type { Logger } from '@trawl/observability';
import { FetchError, FetchErrorCode } from '../fetch/fetch.errors';
import type { LeafCertificates } from './leaf-certificates';
import { prefixedStream } from './prefixed-stream';
import { assertNotBlocked, ProxiedRequestHandler, TunnelContext } from './proxied-request';
import { parseProxyAuthorization } from './proxy-credentials';
import type { ProxyModeMetrics } from './proxy-mode.metrics';
import type { ClientAddressGuard, ProxyAuthenticator } from './proxy-mode.ports';
import { logRefusal } from '../problems/problem-log';
import { proxyProblemOf, rawProblemResponse } from './proxy-problems';
import { isClientError } from '../limits/client-address-health';

export interface ProxyModeServerOptions {
  /** Address to listen on (`HTTP_HOST`). */
  host: string;
  /** `PROXY_MODE_PORT`; 0 = ephemeral (tests). */
  port: number;
  /** How long `stop()` lets proxied requests finish before cutting them, in ms (the drain share of `SHUTDOWN_TIMEOUT_MS`). */
  drainTimeoutMs: number;
  /**
   * How long a client may take to send its request (headers and body), and after CONNECT its first
   * bytes, in ms. Default 30,000. The Fetch answer itself may take minutes; this does not limit it.
   */
  requestTimeoutMs?: number;
}

const TLS_HANDSHAKE = 0x16;
const ESTABLISHED = 'HTTP/1.1 200 Connection Established\r\n\r\n';

/**
 * Proxy mode (spec-extract-fetch §5.3): an HTTP/1.1 forward proxy on its own port. Absolute-form
 * requests and requests inside `CONNECT` tunnels run through the Fetch pipeline with the options of
 * the `Proxy-Authorization` password. A tunnel carrying TLS is terminated with a certificate for
 * the CONNECT host signed by the operator's CA; one carrying plain HTTP (undici's ProxyAgent tunnels
 * http:// targets too) is read as is. Credentials are checked at CONNECT, before any tunnel exists.
 */
export class ProxyModeServer {
  private readonly server: Server;
  // Parses the requests inside tunnels; never listens, fed with `emit('connection')`.
  private readonly tunnelServer: Server;
  private readonly tunnels = new WeakMap<Duplex, TunnelContext>();
  private readonly sockets = new Set<Socket>();
  private inFlight = 0;
  private readonly idleWaiters: (() => void)[] = [];
  private state: 'idle' | 'listening' | 'stopped' = 'idle';

  constructor(
    private readonly handler: ProxiedRequestHandler,
    private readonly authenticator: ProxyAuthenticator,
    private readonly addresses: ClientAddressGuard | undefined,
    private readonly certificates: LeafCertificates,
    private readonly metrics: ProxyModeMetrics,
    private readonly logger: Logger,
    private readonly options: ProxyModeServerOptions,
  ) {
    // Both bound only what the client sends; a Fetch answer of ~3 minutes is not cut by them.
    const requestTimeout = options.requestTimeoutMs ?? 30_000;
    const serverOptions = { keepAliveTimeout: 5_000, requestTimeout, headersTimeout: requestTimeout };
    this.server = createServer(serverOptions, (request, response) => this.serve(request, response));
    this.tunnelServer = createServer(serverOptions, (request, response) => this.serve(request, response, this.tunnels.get(request.socket)));
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('connect', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      // Nothing may be read before the tunnel is decided: the first bytes tell TLS from HTTP.
      socket.pause();
      void this.connect(request, socket, head);
    });
    for (const server of [this.server, this.tunnelServer]) {
      server.on('clientError', (_error: Error, socket: Duplex) => {
        if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
        else socket.destroy();
      });
    }
  }

  /** Starts listening; safe to call twice. @returns the bound address. */
  async start(): Promise<AddressInfo> {
    if (this.state === 'idle') {
      this.state = 'listening';
      this.server.listen(this.options.port, this.options.host);
      await once(this.server, 'listening');
      this.logger.info({ address: this.server.address() }, 'proxy mode listening');
    }
    return this.address();
  }

  address(): AddressInfo {
    return this.server.address() as AddressInfo;
  }

  /**
   * Stops taking connections, lets proxied requests finish for up to `drainTimeoutMs`, then cuts
   * every connection and tunnel. Safe to call twice.
   */
  async stop(): Promise<void> {
    if (this.state !== 'listening') {
      this.state = 'stopped';
      return;
    }
    this.state = 'stopped';
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.server.closeIdleConnections();
    this.tunnelServer.closeIdleConnections();
    if (this.inFlight > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, this.options.drainTimeoutMs))),
      ]);
      clearTimeout(timer);
    }
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private serve(request: IncomingMessage, response: ServerResponse, tunnel?: TunnelContext): void {
    this.inFlight++;
    void this.handler.handle(request, response, tunnel).finally(() => {
      this.inFlight--;
      if (this.inFlight === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
    });
  }

  private async connect(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', () => socket.destroy());
    const address = request.socket.remoteAddress;
    let tunnel: Omit<TunnelContext, 'kind'> & { host: string };
    let blocked = false;
    try {
      if (this.addresses && address) blocked = await assertNotBlocked(this.addresses, address);
      const target = connectTargetOf(request.url);
      const credentials = parseProxyAuthorization(request.headers['proxy-authorization']);
      await this.authenticator.authenticate(credentials.apiKey);
      tunnel = { ...target, credentials, clientAddress: address };
    } catch (error) {
      const problem = proxyProblemOf(error, this.logger);
      this.metrics.connects.inc({ outcome: problem.code });
      logRefusal(
        this.logger,
        { instance: problem.instance, status: problem.status, code: problem.code, method: 'CONNECT', route: 'proxy_mode' },
        'CONNECT refused',
      );
      if (address && !blocked) this.recordAddress(address, isClientError(problem.status, false));
      socket.end(rawProblemResponse(problem));
      return;
    }
    this.metrics.connects.inc({ outcome: 'tunnel' });
    this.metrics.tunnelsOpen.inc();
    socket.once('close', () => this.metrics.tunnelsOpen.dec());
    socket.write(ESTABLISHED);
    const open = (first: Buffer) => this.openTunnel(socket, Buffer.concat([head, first]), tunnel);
    if (head.length > 0) open(Buffer.alloc(0));
    else {
      // A tunnel nobody speaks in holds a socket for nothing.
      const silent = setTimeout(() => socket.destroy(), this.options.requestTimeoutMs ?? 30_000);
      socket.once('close', () => clearTimeout(silent));
      socket.once('data', (first: Buffer) => {
        clearTimeout(silent);
        socket.pause();
        open(first);
      });
      socket.resume();
    }
  }

  private openTunnel(socket: Duplex, first: Buffer, tunnel: Omit<TunnelContext, 'kind'> & { host: string }): void {
    const stream = prefixedStream(socket, first);
    if (first[0] === TLS_HANDSHAKE) {
      this.certificates.secureContextFor(tunnel.host).then(
        (secureContext) => {
          // The client may have given up while the first certificate's keys were being made.
          if (!socket.destroyed) this.openTlsTunnel(stream, secureContext, tunnel);
        },
        (error: unknown) => {
          this.logger.error({ err: error }, 'could not issue a proxy mode certificate');
          socket.destroy();
        },
      );
    } else {
      const origin = tunnel.origin.replace(/^https:/, 'http:');
      this.tunnels.set(stream, { origin, credentials: tunnel.credentials, clientAddress: tunnel.clientAddress, kind: 'tunnel_http' });
      this.tunnelServer.emit('connection', stream);
    }
  }

  private openTlsTunnel(stream: Duplex, secureContext: SecureContext, tunnel: Omit<TunnelContext, 'kind'> & { host: string }): void {
    const tls = new TLSSocket(stream, { isServer: true, secureContext, ALPNProtocols: ['http/1.1'] });
    // A client that does not trust our CA hangs up mid-handshake: its choice, not our error.
    tls.on('error', (error) => {
      this.logger.debug({ err: error, host: tunnel.host }, 'proxy mode TLS failed');
      tls.destroy();
    });
    this.tunnels.set(tls, { origin: tunnel.origin, credentials: tunnel.credentials, clientAddress: tunnel.clientAddress, kind: 'https' });
    this.tunnelServer.emit('connection', tls);
  }

  private recordAddress(address: string, isError: boolean): void {
    this.addresses?.record(address, isError);
  }
}

/**
 * The `host:port` of a CONNECT (RFC 9110 §9.3.6), as the origin of the tunnel's requests. Port 443
 * is left out of the origin, as URLs do.
 *
 * @throws FetchError `REQS004` when it is not an authority with a port.
 */
export function connectTargetOf(target: string | undefined): { host: string; origin: string } {
  const invalid = () =>
    new FetchError(FetchErrorCode.InvalidParameters, 'CONNECT takes `host:port`, e.g. `CONNECT shop.example:443`.', {
      parameter: 'url',
    });
  if (target === undefined || !/^(\[[0-9a-f:.]+\]|[^\s/?#@:[\]]+):\d{1,5}$/i.test(target)) throw invalid();
  let url: URL;
  try {
    url = new URL(`https://${target}/`);
  } catch {
    throw invalid();
  }
  if (url.hostname === '') throw invalid();
  return { host: url.hostname.replace(/^\[|\]$/g, ''), origin: url.origin };
}
