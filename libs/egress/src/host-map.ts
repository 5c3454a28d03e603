import { isIP } from 'node:net';

// Lowercase DNS names as WHATWG URL parsing leaves them (punycode, no port, no brackets).
const HOSTNAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/**
 * Parses `EGRESS_HOST_MAP`, e.g. `"shop.test=127.0.0.1,hooks.test=::1"`, into lowercase hostname →
 * IP address. Only named hosts can be mapped: a literal IP key would exempt that literal from the
 * policy. An empty spec gives an empty map.
 *
 * @throws Error naming the first bad or duplicated entry, so boot fails with a useful message.
 */
export function parseHostMap(spec: string): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const rawEntry of spec.split(',')) {
    const entry = rawEntry.trim();
    if (entry === '') continue;
    const [rawHost, address, ...extra] = entry.split('=');
    const host = rawHost.trim().toLowerCase();
    if (address === undefined || extra.length > 0 || !HOSTNAME.test(host) || isIP(host) !== 0) {
      throw new Error(`Egress host map entry "${entry}" is not hostname=ip`);
    }
    if (isIP(address.trim()) === 0) {
      throw new Error(`Egress host map entry "${entry}" does not map to an IP address`);
    }
    if (map.has(host)) throw new Error(`Egress host map entry "${entry}" repeats host ${host}`);
    map.set(host, address.trim());
  }
  return map;
}
