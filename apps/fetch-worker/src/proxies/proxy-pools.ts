import { createHash } from 'node:crypto';
import { parseUpstreamProxy } from '../egress-proxy/upstream-tunnel';
import { ProxyError, ProxyErrorCode } from './proxy.errors';

/** One upstream proxy of a pool. */
export interface ProxyEndpoint {
  /**
   * Stable, secret-free identity (`<pool>#<12 hex of sha256(url)>`): what the session bindings store
   * and what logs and metrics may show. Reordering a pool does not change it.
   */
  id: string;
  /** The proxy URL, credentials included: a secret, never logged. */
  url: string;
  /** Pool name: `standard`, `premium` or `premium.<country>`. */
  pool: string;
  /** ISO 3166-1 alpha-2, lowercase, for `premium.<country>` pools. */
  country?: string;
}

/** The configured upstream pools; any of them may be absent (then that traffic egresses directly). */
export interface ProxyPools {
  standard: readonly ProxyEndpoint[];
  premium: readonly ProxyEndpoint[];
  /** `premium.<country>` pools by country code. */
  premiumByCountry: ReadonlyMap<string, readonly ProxyEndpoint[]>;
}

const POOL_NAME = /^(standard|premium|premium\.([a-z]{2}))$/;

/**
 * Parses `PROXY_POOLS`: `;`-separated `<pool>=<url>|<url>|…`, pool being `standard`, `premium` or
 * `premium.<cc>` (country in lowercase ISO 3166-1 alpha-2), e.g.
 * `standard=http://u:p@10.0.0.5:3128|http://10.0.0.6:3128;premium=http://u:p@prem:8000;premium.us=http://u:p@us.prem:8000`.
 * URLs are http: or https: proxies; `;`, `|` and `%` inside credentials are percent-encoded. Blank
 * entries and spaces around separators are ignored; the empty string means no pool at all.
 *
 * @throws ProxyError `InvalidPools` naming the pool and the position of the bad URL, never the URL.
 */
export function parseProxyPools(spec: string): ProxyPools {
  const standard: ProxyEndpoint[] = [];
  const premium: ProxyEndpoint[] = [];
  const premiumByCountry = new Map<string, ProxyEndpoint[]>();
  const seen = new Set<string>();
  for (const rawEntry of spec.split(';')) {
    const entry = rawEntry.trim();
    if (entry === '') continue;
    const equals = entry.indexOf('=');
    const pool = (equals < 0 ? entry : entry.slice(0, equals)).trim().toLowerCase();
    const match = POOL_NAME.exec(pool);
    if (equals < 0 || !match) {
      // The name part holds no credential unless the `=` is missing, so only a safe prefix is shown.
      const shown = equals < 0 ? '(no "=")' : JSON.stringify(pool.slice(0, 32));
      throw invalid(`PROXY_POOLS entry ${shown} is not <pool>=<url>|…; pools are standard, premium, premium.<cc>`);
    }
    if (seen.has(pool)) throw invalid(`PROXY_POOLS names pool ${pool} twice`);
    seen.add(pool);
    const urls = entry
      .slice(equals + 1)
      .split('|')
      .map((url) => url.trim())
      .filter((url) => url !== '');
    if (urls.length === 0) throw invalid(`PROXY_POOLS pool ${pool} has no proxy URL`);
    const country = match[2];
    const endpoints = urls.map((url, index) => toEndpoint(pool, country, url, index));
    if (new Set(endpoints.map((e) => e.id)).size !== endpoints.length) {
      throw invalid(`PROXY_POOLS pool ${pool} lists the same proxy twice`);
    }
    if (pool === 'standard') standard.push(...endpoints);
    else if (pool === 'premium') premium.push(...endpoints);
    else premiumByCountry.set(country, endpoints);
  }
  return { standard, premium, premiumByCountry };
}

/** `http://user:***@host:port` — a proxy URL fit for a log line. */
export function redactProxyUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    if (parsed.username !== '') parsed.username = '***';
    return `${parsed.protocol}//${parsed.username ? `${parsed.username}:${parsed.password}@` : ''}${parsed.host}`;
  } catch {
    return '(unparsable proxy URL)';
  }
}

/** One line per pool (`premium.us: 2 proxies`) for the boot log: counts and ids only, no URL. */
export function describeProxyPools(pools: ProxyPools): string {
  const parts: string[] = [];
  if (pools.standard.length > 0) parts.push(`standard: ${pools.standard.length}`);
  if (pools.premium.length > 0) parts.push(`premium: ${pools.premium.length}`);
  for (const [country, endpoints] of pools.premiumByCountry) parts.push(`premium.${country}: ${endpoints.length}`);
  return parts.length === 0 ? 'no upstream proxy (direct egress for every tier)' : parts.join(', ');
}

function toEndpoint(pool: string, country: string | undefined, url: string, index: number): ProxyEndpoint {
  try {
    parseUpstreamProxy(url);
  } catch (error) {
    throw invalid(`PROXY_POOLS pool ${pool}, proxy ${index + 1}: ${(error as Error).message}`);
  }
  const id = `${pool}#${createHash('sha256').update(url).digest('hex').slice(0, 12)}`;
  return country === undefined ? { id, url, pool } : { id, url, pool, country };
}

function invalid(message: string): ProxyError {
  return new ProxyError(ProxyErrorCode.InvalidPools, message);
}
