import { randomBytes } from 'node:crypto';
import {
  Agent,
  createServer,
  request as httpRequest,
  type ClientRequest,
  type ClientRequestArgs,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { Duplex } from 'node:stream';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { EgressError, EgressErrorCode, type EgressPolicy, type ResolvedAddress } from '@trawl/egress';
import { endToEndHeaders, parseAbsoluteTarget, parseConnectTarget, type ProxyTarget } from './proxy-target';
import { openUpstreamTunnel, parseUpstreamProxy } from './upstream-tunnel';

/**
 * Picks the upstream proxy (premium pool, country, sticky `session_id`) for one target of one
 * session, as a URL such as `http://user:pass@proxy.example:8080`; undefined connects directly.
 * Called once per CONNECT and per plain-HTTP request, after the egress policy accepted the target.
 */
export type UpstreamChooser = (target: ProxyTarget) => string | undefined | Promise<string | undefined>;

/** Why the proxy did not connect a target. */
export interface EgressFailure {
  /** Host as the browser asked for it (never the address it resolved to). */
  host: string;
  port: number;
  /**
   * `blocked_address` / `invalid_url`: refused by policy (403 / 400); `dns_failure`: the name does
   * not resolve (502); `connect_failed` / `timeout`: the target or upstream could not be reached (502).
   */
  code: EgressErrorCode;
  /** Epoch ms. */
  at: number;
}

/** Counters of one session, for `json_response`, metrics and logs. */
export interface ProxySessionStats {
  /** Bytes the browser sent through the session (request heads and bodies, TLS records), in bytes. */
  bytesSent: number;
  /** Bytes the browser received through the session, in bytes. */
  bytesReceived: number;
  /** CONNECT tunnels and plain-HTTP requests asked for, refused ones included. */
  requests: number;
  /** Requests refused by the egress policy (`blocked_address`, `invalid_url`). */
  refusals: number;
  /** Requests and tunnels routed through an upstream proxy. */
  upstreamRequests: number;
  /** The first {@link MAX_RECORDED_FAILURES} failures, in order. */
  failures: EgressFailure[];
}

export interface ProxySessionOptions {
  /** Upstream proxy per target. Default: every target is connected directly. */
  upstream?: UpstreamChooser;
  /**
   * Refuse every target without resolving it. For the browser-wide proxy that only Chromium's own
   * background traffic would use (pages always get a session of their own). Default: false.
   */
  denyAll?: boolean;
}

export interface ProxySessionDeps {
  policy: EgressPolicy;
  /** TCP connect (and upstream CONNECT) time limit, in ms. */
  connectTimeoutMs: number;
  /** A tunnel or request idle for this long is closed, in ms. */
  idleTimeoutMs: number;
  /**
   * Most bytes the targets may send one request of the session (since it opened or since
   * `resetStats`): past it every connection is cut and {@link ProxySession.overLimit} is true. A
   * page must not make the worker (or Chromium) hold an unbounded download. Default: no limit.
   */
  maxBytesReceived?: number;
  onFailure?: (failure: EgressFailure) => void;
  onClose?: (session: ProxySession) => void;
}

/** Failures kept per session; a hostile page can ask for thousands. */
const MAX_RECORDED_FAILURES = 50;

/** How long an idle connection to a target is kept for the session's next request to it, in ms. */
const TARGET_KEEP_ALIVE_MS = 4_000;

/** Response header that marks the proxy's own refusal of a plain-HTTP request. */
export const EGRESS_REFUSAL_HEADER = 'x-trawl-egress-refusal';

/**
 * One HTTP forward proxy listener on `127.0.0.1:<ephemeral>` for one browser context, so the
 * listener's port identifies the context (no credentials needed). Every CONNECT and plain-HTTP
 * request resolves its host once through the egress policy and connects to exactly the address that
 * was checked; an upstream proxy, when chosen, is asked to CONNECT to that address too, so nothing
 * downstream resolves the name again.
 */
export class ProxySession {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly counters: ProxySessionStats = {
    bytesSent: 0,
    bytesReceived: 0,
    requests: 0,
    refusals: 0,
    upstreamRequests: 0,
    failures: [],
  };
  // Bytes of client sockets that have closed; live sockets are added on read.
  private closedSent = 0;
  private closedReceived = 0;
  private baseline = { sent: 0, received: 0 };
  /** Bytes targets sent since the last reset, counted as they arrive (for the limit). */
  private streamed = 0;
  private exceeded = false;
  private readonly clientSockets = new Set<Socket>();
  /** Random per session, so a target cannot forge the proxy's refusal answer. */
  private readonly refusalToken = randomBytes(12).toString('hex');
  private closing?: Promise<void>;
  private portNumber = 0;
  /**
   * Keep-alive connections to plain-HTTP targets that the session connected directly, pooled by
   * host and port as a browser pools them: a page's requests to its site, and the next page's,
   * reuse a connection instead of paying a TCP handshake to the target each (~1 ms of CPU here,
   * a round trip to the site on a real network). Each was made by {@link openDirect}, to the
   * address the policy checked. A session that may route through an upstream proxy keeps none:
   * rotation picks the upstream per request.
   */
  private readonly targets: Agent;

  private constructor(
    private readonly deps: ProxySessionDeps,
    private readonly options: ProxySessionOptions,
  ) {
    this.targets = new CheckedTargetAgent((host, port) => this.openDirect({ host, port }), TARGET_KEEP_ALIVE_MS);
    this.server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => void this.onRequest(req, res));
    this.server.on('connect', (req: IncomingMessage, socket: Socket, head: Buffer) => void this.onConnect(req, socket, head));
    this.server.on('connection', (socket: Socket) => {
      this.clientSockets.add(socket);
      this.track(socket);
      socket.once('close', () => {
        this.clientSockets.delete(socket);
        this.closedSent += socket.bytesRead;
        this.closedReceived += socket.bytesWritten;
      });
    });
    // Upgrades other than CONNECT (ws:// in absolute form) are not something Chromium sends a proxy.
    this.server.on('upgrade', (_req: IncomingMessage, socket: Socket) => socket.end('HTTP/1.1 501 Not Implemented\r\n\r\n'));
    this.server.on('clientError', (_error, socket: Socket) => socket.destroy());
  }

  /** Starts a session listening on 127.0.0.1 with an ephemeral port. */
  static async open(deps: ProxySessionDeps, options: ProxySessionOptions = {}): Promise<ProxySession> {
    const session = new ProxySession(deps, options);
    await new Promise<void>((resolve, reject) => {
      session.server.once('error', reject);
      session.server.listen(0, '127.0.0.1', () => {
        session.server.off('error', reject);
        resolve();
      });
    });
    session.portNumber = (session.server.address() as AddressInfo).port;
    return session;
  }

  /** The port of this session's listener on 127.0.0.1. */
  get port(): number {
    return this.portNumber;
  }

  /** `http://127.0.0.1:<port>`, for `--proxy-server` or a browser context's `proxyServer`. */
  get url(): string {
    return `http://127.0.0.1:${this.portNumber}`;
  }

  /** A snapshot of the counters since the session opened or was last reset (live tunnels included). */
  stats(): ProxySessionStats {
    const { sent, received } = this.bytesSoFar();
    return {
      ...this.counters,
      bytesSent: sent - this.baseline.sent,
      bytesReceived: received - this.baseline.received,
      failures: [...this.counters.failures],
    };
  }

  /**
   * Starts the counters and the failure record afresh, for a browser page that serves another
   * request of the same tenant and route (the listener and its keep-alive connections stay).
   */
  resetStats(): void {
    this.baseline = this.bytesSoFar();
    this.streamed = 0;
    this.exceeded = false;
    Object.assign(this.counters, { requests: 0, refusals: 0, upstreamRequests: 0, failures: [] });
  }

  private bytesSoFar(): { sent: number; received: number } {
    let sent = this.closedSent;
    let received = this.closedReceived;
    for (const socket of this.clientSockets) {
      sent += socket.bytesRead;
      received += socket.bytesWritten;
    }
    return { sent, received };
  }

  /** Whether the targets sent more than `maxBytesReceived` since the last reset (the connections were cut). */
  get overLimit(): boolean {
    return this.exceeded;
  }

  /**
   * The failure code when `headers` (a response's, lowercase names) are this session's own refusal
   * of a plain-HTTP request rather than a target's answer; undefined otherwise.
   */
  refusalIn(headers: Readonly<Record<string, string>>): EgressErrorCode | undefined {
    const value = headers[EGRESS_REFUSAL_HEADER];
    if (!value) return undefined;
    const [token, code] = value.split(' ');
    return token === this.refusalToken ? (code as EgressErrorCode) : undefined;
  }

  /** The last failure recorded for `host:port` (host as the browser asked for it), if any. */
  failureFor(host: string, port: number): EgressFailure | undefined {
    const wanted = host.toLowerCase().replace(/^\[|\]$/g, '');
    return this.counters.failures.findLast((failure) => failure.host === wanted && failure.port === port);
  }

  /** Stops listening and destroys every tunnel and connection. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      this.deps.onClose?.(this);
      this.server.close(() => resolve());
      this.targets.destroy();
      for (const socket of this.sockets) socket.destroy();
      this.server.closeAllConnections();
    });
    return this.closing;
  }

  /** Counts what a target sent; past the limit, cuts every connection of the session at once. */
  private countReceived(bytes: number): void {
    this.streamed += bytes;
    const limit = this.deps.maxBytesReceived;
    if (limit === undefined || this.exceeded || this.streamed <= limit) return;
    this.exceeded = true;
    for (const socket of this.sockets) socket.destroy();
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private async onConnect(req: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    this.counters.requests++;
    client.on('error', () => client.destroy());
    const target = parseConnectTarget(req.url);
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    let upstreamSocket: Socket;
    try {
      upstreamSocket = await this.openTo(target);
    } catch (error) {
      const { status, code } = this.fail(target, error);
      client.end(
        `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n${EGRESS_REFUSAL_HEADER}: ${this.refusalToken} ${code}\r\n\r\n`,
      );
      return;
    }
    if (client.destroyed) {
      upstreamSocket.destroy();
      return;
    }
    upstreamSocket.setTimeout(this.deps.idleTimeoutMs, () => upstreamSocket.destroy());
    upstreamSocket.on('error', () => client.destroy());
    upstreamSocket.once('close', () => client.destroy());
    client.once('close', () => upstreamSocket.destroy());
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstreamSocket.write(head);
    upstreamSocket.on('data', (chunk: Buffer) => this.countReceived(chunk.length));
    upstreamSocket.pipe(client);
    client.pipe(upstreamSocket);
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.counters.requests++;
    const target = parseAbsoluteTarget(req.url);
    if (!target) {
      this.refuse(res, 400, EgressErrorCode.InvalidUrl);
      return;
    }
    if (this.options.upstream === undefined && !this.options.denyAll) {
      this.forward(req, res, target, { agent: this.targets }, true);
      return;
    }
    let socket: Socket;
    try {
      socket = await this.openTo(target);
    } catch (error) {
      const { status, code } = this.fail(target, error);
      this.refuse(res, status, code);
      return;
    }
    socket.setTimeout(this.deps.idleTimeoutMs, () => socket.destroy());
    res.once('close', () => socket.destroy());
    this.forward(req, res, target, { createConnection: () => socket }, false);
  }

  /**
   * Sends the browser's request on to the target and pipes the answer back. A GET or HEAD whose
   * pooled connection turns out to have been closed by the target meanwhile is sent once more on a
   * new one, as browsers do; nothing has reached the browser then.
   */
  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    target: ProxyTarget & { path: string },
    connection: { agent: Agent } | { createConnection: () => Socket },
    mayRetry: boolean,
  ): void {
    const outbound: ClientRequest = httpRequest({
      method: req.method,
      host: target.host,
      port: target.port,
      path: target.path,
      headers: endToEndHeaders(req.rawHeaders),
      setHost: false,
      timeout: this.deps.idleTimeoutMs,
      ...connection,
    });
    outbound.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEndHeaders(answer.rawHeaders));
      answer.on('data', (chunk: Buffer) => this.countReceived(chunk.length));
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    let timedOut = false;
    outbound.on('timeout', () => {
      timedOut = true;
      outbound.destroy();
    });
    outbound.on('error', (error) => {
      const bodiless = req.method === 'GET' || req.method === 'HEAD';
      if (mayRetry && bodiless && outbound.reusedSocket && !timedOut && !res.headersSent && !res.destroyed) {
        this.forward(req, res, target, connection, false);
        return;
      }
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const { status, code } =
        error instanceof EgressError ? this.fail(target, error) : { status: 502, code: EgressErrorCode.ConnectFailed };
      this.refuse(res, status, code);
    });
    // A browser that gives up on the answer: the connection is not left half-read for the next request.
    res.once('close', () => {
      if (!res.writableFinished) outbound.destroy();
    });
    // A retry's request has been read already (only bodiless requests are retried).
    if (req.readableEnded) outbound.end();
    else req.pipe(outbound);
  }

  /** Resolves once, checks, then connects to that address, directly or through the chosen upstream. */
  private async openTo(target: ProxyTarget): Promise<Socket> {
    if (this.options.denyAll) {
      throw new EgressError(EgressErrorCode.BlockedAddress, 'This proxy session refuses every target');
    }
    const address = await this.deps.policy.resolve(target.host);
    const upstreamUrl = await this.options.upstream?.(target);
    const socket = upstreamUrl
      ? await this.openThroughUpstream(upstreamUrl, address, target.port)
      : await this.connectDirect(address, target.port);
    this.track(socket);
    return socket;
  }

  /** A direct connection for the session's kept connections (`targets`): resolved once, checked, connected to that address. */
  private async openDirect(target: ProxyTarget): Promise<Socket> {
    const socket = await this.connectDirect(await this.deps.policy.resolve(target.host), target.port);
    this.track(socket);
    return socket;
  }

  private async openThroughUpstream(upstreamUrl: string, address: ResolvedAddress, port: number): Promise<Socket> {
    this.counters.upstreamRequests++;
    try {
      return await openUpstreamTunnel(parseUpstreamProxy(upstreamUrl), { host: address.address, port }, this.deps.connectTimeoutMs);
    } catch (error) {
      throw new EgressError(EgressErrorCode.ConnectFailed, 'Could not open a tunnel through the upstream proxy', { cause: error });
    }
  }

  private connectDirect(address: ResolvedAddress, port: number): Promise<Socket> {
    return new Promise<Socket>((resolve, reject) => {
      const socket = connect({ host: address.address, port, family: address.family });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new EgressError(EgressErrorCode.Timeout, `Connecting took longer than ${this.deps.connectTimeoutMs} ms`));
      }, this.deps.connectTimeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.off('error', onError);
        resolve(socket);
      });
      const onError = (error: Error) => {
        clearTimeout(timer);
        reject(new EgressError(EgressErrorCode.ConnectFailed, 'Connection failed', { cause: error }));
      };
      socket.once('error', onError);
    });
  }

  private fail(target: ProxyTarget, error: unknown): { status: number; code: EgressErrorCode } {
    const code = error instanceof EgressError ? error.code : EgressErrorCode.ConnectFailed;
    const refused = code === EgressErrorCode.BlockedAddress || code === EgressErrorCode.InvalidUrl;
    if (refused) this.counters.refusals++;
    const failure: EgressFailure = { host: target.host.toLowerCase(), port: target.port, code, at: Date.now() };
    if (this.counters.failures.length < MAX_RECORDED_FAILURES) this.counters.failures.push(failure);
    this.deps.onFailure?.(failure);
    return { status: code === EgressErrorCode.BlockedAddress ? 403 : code === EgressErrorCode.InvalidUrl ? 400 : 502, code };
  }

  private refuse(res: ServerResponse, status: number, code: EgressErrorCode): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = `Refused by the egress policy: ${code}\n`;
    res.writeHead(status, {
      'content-type': 'text/plain; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      [EGRESS_REFUSAL_HEADER]: `${this.refusalToken} ${code}`,
    });
    res.end(body);
  }
}

/**
 * An agent whose connections are made by `open` (resolve, check, connect to the checked address):
 * Node's agent asks for a connection with a callback, so the check may be asynchronous.
 */
class CheckedTargetAgent extends Agent {
  constructor(
    private readonly open: (host: string, port: number) => Promise<Socket>,
    keepAliveMs: number,
  ) {
    // `timeout` is also how long an idle pooled connection lives; LIFO reuses the warmest one.
    super({ keepAlive: true, timeout: keepAliveMs, scheduling: 'lifo', maxFreeSockets: 16 });
  }

  override createConnection(options: ClientRequestArgs, callback?: (error: Error | null, stream: Duplex) => void): undefined {
    this.open(String(options.host ?? ''), Number(options.port)).then(
      (socket) => callback?.(null, socket),
      (error: Error) => callback?.(error, undefined as unknown as Duplex),
    );
    return undefined;
  }
}
