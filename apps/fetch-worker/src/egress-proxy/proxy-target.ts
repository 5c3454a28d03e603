import { isIP } from 'node:net';

/** Where a proxied request goes: a host name or IP literal (IPv6 without brackets) and a TCP port. */
export interface ProxyTarget {
  host: string;
  port: number;
}

/**
 * The target of a `CONNECT` request line (`host:port`, `[v6]:port`); undefined when malformed. The
 * port is required: Chromium always sends it, and guessing one would hide a broken client.
 */
export function parseConnectTarget(authority: string | undefined): ProxyTarget | undefined {
  if (!authority) return undefined;
  const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:/[\]@]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return undefined;
  const host = match[1].startsWith('[') ? match[1].slice(1, -1) : match[1];
  if (match[1].startsWith('[') && isIP(host) !== 6) return undefined;
  return { host: host.toLowerCase(), port };
}

/**
 * The target of a plain-HTTP proxy request (absolute form, `GET http://host:port/path`), with the
 * path and query to send upstream. Only `http:`: an `https:` URL in absolute form is not something a
 * browser sends (it tunnels with CONNECT), and anything else is not ours to fetch.
 */
export function parseAbsoluteTarget(requestTarget: string | undefined): (ProxyTarget & { path: string }) | undefined {
  if (!requestTarget || !/^http:\/\//i.test(requestTarget)) return undefined;
  let url: URL;
  try {
    url = new URL(requestTarget);
  } catch {
    return undefined;
  }
  if (url.username || url.password) return undefined;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (host === '') return undefined;
  return { host, port: url.port === '' ? 80 : Number(url.port), path: `${url.pathname}${url.search}` };
}

// RFC 9110 §7.6.1 hop-by-hop fields, plus the proxy's own: never forwarded in either direction.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * Raw header pairs (`[name, value, name, value, …]` as node gives them) without hop-by-hop fields,
 * including those a `Connection` header names. Order and case are kept: sites fingerprint both.
 */
export function endToEndHeaders(rawHeaders: readonly string[]): string[] {
  const named = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].toLowerCase() === 'connection') {
      for (const token of rawHeaders[i + 1].split(',')) named.add(token.trim().toLowerCase());
    }
  }
  const kept: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if (HOP_BY_HOP.has(name) || named.has(name)) continue;
    kept.push(rawHeaders[i], rawHeaders[i + 1]);
  }
  return kept;
}

/** `host:port` with IPv6 literals bracketed, as in a CONNECT line or a Host header. */
export function formatAuthority({ host, port }: ProxyTarget): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
