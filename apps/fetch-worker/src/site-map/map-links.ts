import { MAX_URL_LENGTH, normalizeParsedUrl, urlKeyOfParsed } from '@trawl/egress';
import type { MapLinkSource } from '@trawl/contracts';
import type { MapLinkResource } from '@trawl/contracts/http';

/**
 * Distinct URLs a map reads before it stops reading (and answers `complete: false`): twice the
 * largest `limit`, so a ranked map has room to choose. Bounds a map's memory whatever the site.
 */
export const MAX_MAP_URLS = 200_000;

const ABSOLUTE_HTTP = /^https?:\/\//i;

/** Decides by host name whether a URL belongs to the site being mapped. */
export type MapScope = (hostname: string) => boolean;

/**
 * The scope of a map of `start`: its host, `www.` or not; with `includeSubdomains`, any host of its
 * site (as a crawl's scope, `isSameSite`).
 */
export function mapScope(start: URL, includeSubdomains: boolean, isSameSite: (hostname: string) => boolean): MapScope {
  const bare = (host: string) => (host.startsWith('www.') ? host.slice(4) : host);
  const startHost = bare(start.hostname);
  return includeSubdomains ? isSameSite : (hostname) => bare(hostname) === startHost;
}

/**
 * The links of a map as its sources are read: resolved, normalised and deduplicated by the crawl's
 * rules (`normalizeUrl`, `urlKey`), kept only in scope, in groups so that the answer's order does
 * not depend on which of several sources read at once answered first. The first source to name a
 * URL keeps it; a later link on the page still lends it its text.
 */
export class MapLinks {
  private readonly seen = new Map<string, MapLinkResource>();
  private readonly groups: MapLinkResource[][] = [];
  /** True once `MAX_MAP_URLS` were seen: sources are no longer read. */
  full = false;

  constructor(private readonly inScope: MapScope) {}

  /** A new group, answered after those opened before it (one per sitemap, one for the page). */
  openGroup(): MapLinkResource[] {
    const group: MapLinkResource[] = [];
    this.groups.push(group);
    return group;
  }

  /**
   * Offers a URL found in a source, resolved against `base` when relative. Returns false when it was
   * not kept (not http(s), too long, out of scope, already seen, or the map is full).
   */
  offer(
    group: MapLinkResource[],
    raw: string,
    source: MapLinkSource,
    extra: { lastmod?: string; title?: string } = {},
    base?: string,
  ): boolean {
    if (this.full || raw.length > MAX_URL_LENGTH) return false;
    let url: URL;
    try {
      // An absolute URL (nearly every sitemap entry) is parsed without its base: parsing the base is half the cost.
      url = base === undefined || ABSOLUTE_HTTP.test(raw) ? new URL(raw) : new URL(raw, base);
    } catch {
      return false;
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !this.inScope(url.hostname)) return false;
    const normalized = normalizeParsedUrl(url);
    if (normalized === null) return false;
    const key = urlKeyOfParsed(url);
    const known = this.seen.get(key);
    if (known) {
      if (known.title === undefined && extra.title) known.title = extra.title;
      return false;
    }
    const link: MapLinkResource = { url: normalized, source };
    if (extra.lastmod !== undefined) link.lastmod = extra.lastmod;
    if (extra.title) link.title = extra.title;
    this.seen.set(key, link);
    group.push(link);
    if (this.seen.size >= MAX_MAP_URLS) this.full = true;
    return true;
  }

  /** Distinct URLs kept so far. */
  get size(): number {
    return this.seen.size;
  }

  /** Every link kept, group by group. */
  all(): MapLinkResource[] {
    return this.groups.flat();
  }
}
