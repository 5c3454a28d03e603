import type { Socket } from 'node:net';
import { isIP } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { EgressPolicy } from '@trawl/egress';
import { Agent, type buildConnector } from 'undici';
import { openUpstreamTunnel, parseUpstreamProxy, type UpstreamProxy } from '../egress-proxy/upstream-tunnel';

export interface UpstreamAgentOptions {
  /** Time to reach the upstream and have it open the tunnel, and for the target's TLS handshake, in ms. Default: 10,000. */
  connectTimeoutMs?: number;
  /** How long an idle tunnel is kept for the next request to the same origin, in ms. Default: 4,000. */
  keepAliveTimeoutMs?: number;
}

/**
 * An undici Agent that sends every request through the upstream proxy `proxyUrl` while the egress
 * policy still decides the target: the target name is resolved by `policy` (refusing loopback,
 * private and metadata addresses exactly as direct egress does), and the upstream is asked to
 * CONNECT to that checked address — not to the name, so the proxy's own DNS cannot be steered to an
 * address we never checked. TLS to the target is ours, end to end through the tunnel (certificate
 * checked against the target's name). Plain-HTTP targets go through a CONNECT tunnel too, so the
 * upstream never sees (or can alter) request heads in clear on an `https:` proxy link.
 *
 * Use with `safeRequest(policy, agent, url)`: as this is not an `createEgressAgent` agent,
 * safeRequest also checks every hop's URL with the policy before sending it — so a redirect to a
 * refused host is refused before anything reaches the proxy.
 *
 * Geo trade-off: the target name is resolved from the worker, not from the proxy's country, so a
 * geo-DNS site sees the proxy's address but may serve from the edge nearest the worker.
 */
function createUpstreamAgent(policy: EgressPolicy, proxyUrl: string, options: UpstreamAgentOptions = {}): Agent {
  const upstream = parseUpstreamProxy(proxyUrl);
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const connect: buildConnector.connector = (target, callback) => {
    openThroughUpstream(policy, upstream, target, connectTimeoutMs).then(
      (socket) => callback(null, socket),
      (error: Error) => callback(error, null),
    );
  };
  return new Agent({ connect, keepAliveTimeout: options.keepAliveTimeoutMs ?? 4_000 });
}

async function openThroughUpstream(
  policy: EgressPolicy,
  upstream: UpstreamProxy,
  target: buildConnector.Options,
  timeoutMs: number,
): Promise<Socket | TLSSocket> {
  const secure = target.protocol === 'https:';
  const port = target.port === '' || target.port === undefined ? (secure ? 443 : 80) : Number(target.port);
  const [address] = await policy.resolveAll(target.hostname);
  const tunnel = await openUpstreamTunnel(upstream, { host: address.address, port }, timeoutMs);
  if (!secure) return tunnel;
  const hostname = target.hostname.replace(/^\[|\]$/g, '');
  return upgradeToTls(tunnel, target.servername ?? (isIP(hostname) === 0 ? hostname : undefined), timeoutMs);
}

function upgradeToTls(tunnel: Socket, servername: string | undefined, timeoutMs: number): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ socket: tunnel, servername, ALPNProtocols: ['http/1.1'] });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`TLS handshake through the upstream proxy took more than ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.off('error', onError);
      resolve(socket);
    });
    const onError = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    socket.once('error', onError);
  });
}

/**
 * One {@link createUpstreamAgent} per upstream proxy URL, kept for keep-alive reuse and closed
 * together at shutdown.
 */
export class UpstreamAgents {
  private readonly agents = new Map<string, Agent>();

  constructor(
    private readonly policy: EgressPolicy,
    private readonly options: UpstreamAgentOptions = {},
  ) {}

  /** The agent for `proxyUrl` (created on first use). */
  agentFor(proxyUrl: string): Agent {
    let agent = this.agents.get(proxyUrl);
    if (!agent) {
      agent = createUpstreamAgent(this.policy, proxyUrl, this.options);
      this.agents.set(proxyUrl, agent);
    }
    return agent;
  }

  /** Closes every agent (in-flight requests finish first). Safe to call twice. */
  async close(): Promise<void> {
    const agents = [...this.agents.values()];
    this.agents.clear();
    await Promise.all(agents.map((agent) => agent.close()));
  }
}
