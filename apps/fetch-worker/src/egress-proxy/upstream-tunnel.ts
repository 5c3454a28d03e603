import { connect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { formatAuthority, type ProxyTarget } from './proxy-target';

/** An upstream (premium, country, sticky-session) proxy, parsed from its URL. */
export interface UpstreamProxy {
  protocol: 'http:' | 'https:';
  host: string;
  port: number;
  /** `Basic base64(user:password)` when the URL carries credentials (a secret: never log it). */
  authorization?: string;
}

/**
 * Parses an upstream proxy URL such as `http://user:pa%40ss@proxy.example:8080`. Credentials are
 * percent-decoded, as WHATWG URL parsing leaves them encoded.
 *
 * @throws Error for another scheme or a URL that does not parse (the message never repeats the URL,
 *   which may hold a password).
 */
export function parseUpstreamProxy(url: string): UpstreamProxy {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('Upstream proxy URL does not parse');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`Upstream proxy scheme ${parsed.protocol} is not supported (http: or https:)`);
  }
  const host = parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
  const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : 80) : Number(parsed.port);
  const upstream: UpstreamProxy = { protocol: parsed.protocol, host, port };
  if (parsed.username !== '' || parsed.password !== '') {
    const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
    upstream.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  return upstream;
}

/** The CONNECT request head sent to an upstream proxy. */
export function connectRequestHead(target: ProxyTarget, upstream: UpstreamProxy): string {
  const authority = formatAuthority(target);
  const lines = [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`];
  if (upstream.authorization) lines.push(`Proxy-Authorization: ${upstream.authorization}`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Status code of an HTTP response head's status line; undefined when it is not one. */
export function statusOfResponseHead(head: string): number | undefined {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  return match ? Number(match[1]) : undefined;
}

// A proxy's answer to CONNECT is a few hundred bytes; more without an end is not a proxy.
const MAX_CONNECT_HEAD_BYTES = 16 * 1024;

/**
 * Opens a TCP tunnel to `target` through `upstream` with HTTP CONNECT, and answers the socket once
 * the upstream said 2xx. Bytes the upstream sent after its head are pushed back into the socket.
 *
 * @throws Error when the upstream cannot be reached, refuses (the message carries its status), or
 *   does not answer within `timeoutMs`.
 */
export function openUpstreamTunnel(upstream: UpstreamProxy, target: ProxyTarget, timeoutMs: number): Promise<Socket> {
  return new Promise<Socket>((resolve, reject) => {
    const socket: Socket =
      upstream.protocol === 'https:'
        ? tlsConnect({ host: upstream.host, port: upstream.port, servername: upstream.host })
        : connect({ host: upstream.host, port: upstream.port });
    let head = Buffer.alloc(0);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`Upstream proxy did not open a tunnel within ${timeoutMs} ms`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        if (head.length > MAX_CONNECT_HEAD_BYTES) fail(new Error('Upstream proxy answered CONNECT with an oversized head'));
        return;
      }
      socket.off('data', onData);
      socket.off('error', fail);
      clearTimeout(timer);
      const status = statusOfResponseHead(head.subarray(0, end).toString('latin1'));
      if (status === undefined || status < 200 || status > 299) {
        socket.destroy();
        reject(new Error(`Upstream proxy refused the tunnel with status ${status ?? 'unknown'}`));
        return;
      }
      const rest = head.subarray(end + 4);
      if (rest.length > 0) socket.unshift(rest);
      resolve(socket);
    };
    socket.once(upstream.protocol === 'https:' ? 'secureConnect' : 'connect', () => {
      socket.write(connectRequestHead(target, upstream));
    });
    socket.on('data', onData);
    socket.on('error', fail);
  });
}
