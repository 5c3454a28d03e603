import type { EgressPolicy } from '@trawl/egress';
import { ProxySession, type EgressFailure, type ProxySessionOptions } from './proxy-session';

export interface EgressProxyOptions {
  /** The worker's egress policy (with `EGRESS_HOST_MAP` in development and tests). */
  policy: EgressPolicy;
  /** TCP connect time limit, also for the CONNECT to an upstream proxy, in ms. Default: 10,000. */
  connectTimeoutMs?: number;
  /** An idle tunnel or proxied request is closed after this long, in ms. Default: 120,000. */
  idleTimeoutMs?: number;
  /** Told of every failure (refusal, DNS failure, connect failure), e.g. to count it in metrics. */
  onFailure?: (failure: EgressFailure) => void;
  /** Most bytes targets may send one page request (see `ProxySessionDeps.maxBytesReceived`). Default: no limit. */
  maxBytesPerRequest?: number;
}

/**
 * The worker's egress proxy for Chromium (ARCHITECTURE §3 "Egress"): request interception is not a
 * security boundary (Chromium resolves names itself; WebSockets and workers are not intercepted), so
 * every browser byte goes through a forward proxy in this process that applies the egress policy at
 * connect time. Each browser context gets a {@link ProxySession} of its own — its own listener, so
 * the port tells the contexts apart, with its own counters and upstream choice.
 */
export class EgressProxy {
  private readonly sessions = new Set<ProxySession>();

  constructor(private readonly options: EgressProxyOptions) {}

  /** Opens a session (a listener on 127.0.0.1); close it when its browser context closes. */
  async openSession(options: ProxySessionOptions = {}): Promise<ProxySession> {
    const session = await ProxySession.open(
      {
        policy: this.options.policy,
        connectTimeoutMs: this.options.connectTimeoutMs ?? 10_000,
        idleTimeoutMs: this.options.idleTimeoutMs ?? 120_000,
        onFailure: this.options.onFailure,
        maxBytesReceived: this.options.maxBytesPerRequest,
        onClose: (closed) => this.sessions.delete(closed),
      },
      options,
    );
    this.sessions.add(session);
    return session;
  }

  /** Sessions open now (for a gauge and for leak tests). */
  get openSessions(): number {
    return this.sessions.size;
  }

  /** Closes every open session. Safe to call twice. */
  async close(): Promise<void> {
    await Promise.all([...this.sessions].map((session) => session.close()));
  }
}
