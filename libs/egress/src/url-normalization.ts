import { isIPv4, isIPv6 } from 'node:net';
import { getDomain, parse } from 'tldts';

/** Longest URL Trawl accepts or follows, in characters (raw and normalised). */
export const MAX_URL_LENGTH = 2048;

const TRACKING_PARAMS = new Set(['gclid', 'fbclid']);
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The fetchable, canonical form of an http(s) URL, or null when `input` (resolved against `base`)
 * does not parse, is not http/https, or is longer than `MAX_URL_LENGTH` before or after
 * normalising.
 *
 * On top of WHATWG parsing (lowercase scheme and host, punycode, canonical IPv4 — `0x7f.1` becomes
 * `127.0.0.1` —, default port dropped, dot segments resolved) it drops the fragment and the
 * tracking parameters (`utm_*`, `gclid`, `fbclid`, any case), keeps the other query parameters in
 * order, and normalises percent-encoding (RFC 3986 §6.2.2: unreserved characters decoded, other
 * escapes in uppercase hex). `www.` and a trailing slash are kept: they only matter to `urlKey`.
 */
export function normalizeUrl(input: string, base?: string | URL): string | null {
  if (input.length > MAX_URL_LENGTH) return null;
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    return null;
  }
  return normalizeParsedUrl(url);
}

/**
 * `normalizeUrl` of a URL already parsed, which it changes in place: a caller that resolved a link
 * itself saves parsing it again.
 */
export function normalizeParsedUrl(url: URL): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  // Each setter parses the whole URL again (most of this function's time on a crawled page's
  // links): only what changes is set. A bare `#` or `?` has an empty hash or search but shows in href.
  if (url.hash !== '' || url.href.endsWith('#')) url.hash = '';
  const pathname = normalizePercentEncoding(url.pathname);
  if (pathname !== url.pathname) url.pathname = pathname;
  const search = normalizeQuery(url.search);
  if (search !== url.search || (search === '' && url.href.endsWith('?'))) url.search = search;
  return url.href.length > MAX_URL_LENGTH ? null : url.href;
}

function normalizeQuery(search: string): string {
  const params = search
    .slice(1)
    .split('&')
    .map(normalizePercentEncoding)
    .filter((param) => param !== '' && !isTrackingParam(param.split('=')[0].toLowerCase()));
  return params.length === 0 ? '' : `?${params.join('&')}`;
}

function isTrackingParam(key: string): boolean {
  return key.startsWith('utm_') || TRACKING_PARAMS.has(key);
}

function normalizePercentEncoding(text: string): string {
  if (!text.includes('%')) return text;
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_escape, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

/**
 * The key under which a crawl deduplicates a normalised URL: no scheme, no leading `www.` in the
 * host, no trailing `/` in the path; port and query kept. `http://www.a.com/x/`, `https://a.com/x`
 * and `https://a.com/x/` share one key, as do `https://a.com/` and `https://a.com`.
 *
 * @param normalizedUrl a result of `normalizeUrl`.
 */
export function urlKey(normalizedUrl: string): string {
  return urlKeyOfParsed(new URL(normalizedUrl));
}

/**
 * `urlKey` of a URL already parsed and normalised in place by `normalizeParsedUrl`: a caller that
 * holds the URL object saves parsing it again (a map reads 50,000 URLs of a sitemap).
 */
export function urlKeyOfParsed(url: URL): string {
  const host = url.host.startsWith('www.') ? url.host.slice(4) : url.host;
  const path = url.pathname.endsWith('/') ? url.pathname.slice(0, -1) : url.pathname;
  return `${host}${path}${url.search}`;
}

/**
 * `urlKey` read off the text of a normalised URL without parsing it again: the crawl coordinator
 * keys every link of every page, and the parse was a fifth of its busy time. Exact only for the
 * `href` of a WHATWG-parsed http(s) URL (`normalizeUrl`'s output, which the workers send):
 * `scheme://[userinfo@]host[:port]/path[?query]`.
 */
export function urlKeyOfNormalized(normalizedUrl: string): string {
  const authorityStart = normalizedUrl.indexOf('//') + 2;
  let pathStart = normalizedUrl.indexOf('/', authorityStart);
  if (pathStart < 0) pathStart = normalizedUrl.length;
  const queryStart = normalizedUrl.indexOf('?', pathStart);
  const pathEnd = queryStart < 0 ? normalizedUrl.length : queryStart;
  // Userinfo never holds a raw `@` (the parser escapes it), so the last one ends it.
  const userinfoEnd = normalizedUrl.lastIndexOf('@', pathStart - 1);
  const hostStart = userinfoEnd >= authorityStart ? userinfoEnd + 1 : authorityStart;
  const host = normalizedUrl.startsWith('www.', hostStart) ? hostStart + 4 : hostStart;
  const path = normalizedUrl.charCodeAt(pathEnd - 1) === 0x2f && pathEnd > pathStart ? pathEnd - 1 : pathEnd;
  return (
    normalizedUrl.slice(host, pathStart) + normalizedUrl.slice(pathStart, path) + (queryStart < 0 ? '' : normalizedUrl.slice(queryStart))
  );
}

/**
 * The registrable domain ("site") of a hostname by the whole public suffix list, private section
 * included: `shop.example.co.uk` → `example.co.uk`, `docs.alice.github.io` → `alice.github.io`
 * (shared-hosting suffixes such as `github.io` or `netlify.app` count as public, so each customer's
 * site is its own). Hosts the list cannot split (`localhost`, IP literals, a bare suffix such as
 * `github.io`) give the hostname without a leading `www.`. The one rule for a crawl's scope and for
 * Fetch's per-domain stealth memory.
 */
export function registrableDomain(hostname: string): string {
  const host = hostname.toLowerCase();
  return getDomain(host, { allowPrivateDomains: true }) ?? (host.startsWith('www.') ? host.slice(4) : host);
}

/**
 * True when `hostname` belongs to the site `domain` (a `registrableDomain`), subdomains included.
 *
 * A crawl started before shared-hosting suffixes counted stored the suffix itself as its site
 * (`github.io`); such a crawl keeps that scope to its end, so a stored bare private-section suffix
 * still takes every host under it.
 */
export function isSameSite(hostname: string, domain: string): boolean {
  const host = hostname.toLowerCase();
  const site = domain.toLowerCase();
  if (registrableDomain(host) === site) return true;
  return host.endsWith(`.${site}`) && isPrivateSuffix(site);
}

function isPrivateSuffix(name: string): boolean {
  const parsed = parse(name, { allowPrivateDomains: true });
  return parsed.isPrivate === true && parsed.publicSuffix === name;
}

/** True when a WHATWG-parsed hostname is an IP literal: dotted IPv4 or `[IPv6]` (bare IPv6 too). */
export function isIpLiteral(hostname: string): boolean {
  const host = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIPv4(host) || isIPv6(host);
}
