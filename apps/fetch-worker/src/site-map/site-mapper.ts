import type { MapFailureCode, MapRequestV1 } from '@trawl/contracts';
import type { MapLinkResource, MapResultResource } from '@trawl/contracts/http';
import { EgressError, EgressErrorCode, gunzippedWhenCompressed, isSameSite, registrableDomain } from '@trawl/egress';
import { secondsSince } from '@trawl/observability';
import { SitemapReader, type RobotsTxt } from '@trawl/site-maps';
import type { BrowserIdentity, IdentityGenerator } from '../identity';
import { extractTitledLinks } from '../links/link-extractor';
import type { HttpEngine } from '../page-fetch/http-engine';
import { mediaTypeOf } from '../page-fetch/media-type';
import { isHtmlPage, pageText } from '../page-fetch/page-text';
import { parseSearch, rankByRelevance } from './link-relevance';
import { MapLinks, mapScope, type MapScope } from './map-links';
import type { RobotsCache } from './robots-cache';
import { readRobotsTxt, type RobotsRead } from './robots-reader';
import type { MapMetrics, MapDocumentKind } from './map.metrics';

/** Sitemap documents one map reads at most (indexes included): a site with more is answered from the first. */
export const MAX_SITEMAP_DOCUMENTS = 100;
/** Nesting of sitemap indexes followed (robots.txt → index → index → urlset). */
export const MAX_SITEMAP_DEPTH = 3;
/** A sitemap's size cap, decoded (sitemaps.org: 50 MB uncompressed per file). */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;
/** Sitemaps read at once. */
const SITEMAP_CONCURRENCY = 4;
/** Where a site without `Sitemap:` lines most often keeps its sitemap, tried in this order until one answers. */
const WELL_KNOWN_SITEMAPS = ['/sitemap.xml', '/sitemap_index.xml'];
/** The longest robots.txt wait: a map without sitemaps still has the page. */
const ROBOTS_TIMEOUT_MS = 10_000;

export interface SiteMapperOptions {
  http: HttpEngine;
  identities: IdentityGenerator;
  /** Robots.txt rules, for maps that leave out what it disallows (a crawl's seeding with `respect_robots`). */
  robots: RobotsCache;
  /** Largest page read for its links (`MAX_BODY_BYTES`), in bytes. */
  maxPageBytes: number;
  metrics: MapMetrics;
}

/** A map's answer: the public result (and what robots.txt left out of it), or why there is none. */
export type MapOutcome =
  { ok: true; result: MapResultResource; robotsDisallowed: number } | { ok: false; code: MapFailureCode; detail: string };

interface SitemapTask {
  url: string;
  depth: number;
  /** A guessed location (`/sitemap.xml`): its absence is no failure worth reporting. */
  guessed: boolean;
}

/**
 * Maps a site without crawling it (issue "map a site in seconds"): its robots.txt `Sitemap:` lines
 * (else the well-known locations), sitemap indexes and gzipped sitemaps read as they stream in, and
 * the links of the start page, all through the egress policy as the identity's browser, within the
 * request's deadline. What is found by the deadline is answered, marked incomplete.
 */
export class SiteMapper {
  constructor(private readonly options: SiteMapperOptions) {}

  /**
   * @param signal the caller gave up: the map stops and throws the signal's reason.
   * @param cutShort the map stops and answers what it found, as at its deadline (a worker shutting down).
   */
  async map(request: MapRequestV1, signal: AbortSignal, cutShort?: AbortSignal): Promise<MapOutcome> {
    const started = process.hrtime.bigint();
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new MapDeadline()), request.timeout_ms);
    const onCancel = (): void => deadline.abort(signal.reason);
    const onCutShort = (): void => deadline.abort(new MapDeadline());
    if (signal.aborted) onCancel();
    signal.addEventListener('abort', onCancel, { once: true });
    cutShort?.addEventListener('abort', onCutShort, { once: true });
    try {
      const outcome = await new SiteMapRun(this.options, request, deadline.signal).run();
      this.options.metrics.mapped(outcome.ok ? (outcome.result.complete ? 'complete' : 'partial') : outcome.code, secondsSince(started));
      return outcome;
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onCancel);
      cutShort?.removeEventListener('abort', onCutShort);
    }
  }
}

class MapDeadline extends Error {
  constructor() {
    super('the map ran out of time');
  }
}

/** One map under way: its sources, what they gave, and whether any was cut short. */
class SiteMapRun {
  private readonly start: URL;
  private readonly identity: BrowserIdentity;
  private readonly links: MapLinks;
  private readonly inScope: MapScope;
  private complete = true;
  private robotsState: MapResultResource['sources']['robots_txt'] = 'skipped';
  /** Sitemaps in the order they were found, and those of them read: answered in that order, whichever finished first. */
  private readonly sitemapsStarted: string[] = [];
  private readonly sitemapsRead = new Set<string>();
  private readonly sitemapsFailed: { url: string; reason: string }[] = [];
  private pageLinks = 0;
  private pageFailure?: string;
  private sitemapDocuments = 0;
  /** Set when the egress policy refused the site itself (a name that resolves to a private address). */
  private refusal?: string;

  constructor(
    private readonly options: SiteMapperOptions,
    private readonly request: MapRequestV1,
    private readonly signal: AbortSignal,
  ) {
    this.start = new URL(request.url);
    const site = registrableDomain(this.start.hostname);
    this.identity = options.identities.identityFor({ tenantId: request.tenant_id, domain: site, device: 'desktop' });
    this.inScope = mapScope(this.start, request.include_subdomains, (hostname) => isSameSite(hostname, site));
    this.links = new MapLinks(this.inScope);
  }

  async run(): Promise<MapOutcome> {
    const wantsPage = this.request.sitemap !== 'only';
    const wantsSitemaps = this.request.sitemap !== 'skip';
    // Opened first, so the start page and its links lead the answer (a site's own navigation).
    const pageGroup = wantsPage ? this.links.openGroup() : undefined;
    await Promise.all([pageGroup && this.readPage(pageGroup), wantsSitemaps && this.readSitemaps()]);

    const nothingRead = this.sitemapsRead.size === 0 && (this.pageFailure !== undefined || !wantsPage);
    if (nothingRead && this.links.size === 0) {
      const refusal = this.refusal;
      if (refusal) return { ok: false, code: 'invalid_url', detail: refusal };
      if (this.signal.aborted && !(this.signal.reason instanceof MapDeadline)) throw this.signal.reason;
      return { ok: false, code: 'site_unreachable', detail: this.unreachableDetail(wantsPage) };
    }
    if (this.signal.aborted && !(this.signal.reason instanceof MapDeadline)) throw this.signal.reason;
    let links: MapLinkResource[] = this.links.all();
    const found = links.length;
    if (this.request.respect_robots)
      links = await this.options.robots.allowed(links, (link) => link.url, this.request.tenant_id, this.signal);
    const robotsDisallowed = found - links.length;
    if (this.request.search !== undefined) {
      const query = parseSearch(this.request.search);
      links = query.terms.length === 0 ? [] : rankByRelevance(links, query);
    }
    return {
      ok: true,
      robotsDisallowed,
      result: {
        url: this.request.url,
        links: links.slice(0, this.request.limit),
        found: links.length,
        complete: this.complete && !this.links.full,
        sources: {
          robots_txt: this.robotsState,
          sitemaps_read: this.sitemapsStarted.filter((url) => this.sitemapsRead.has(url)),
          sitemaps_failed: this.sitemapsFailed,
          page_links: this.pageLinks,
        },
      },
    };
  }

  private unreachableDetail(wantsPage: boolean): string {
    if (wantsPage && this.pageFailure) return `The page could not be read: ${this.pageFailure}.`;
    const failed = this.sitemapsFailed[0];
    return failed ? `No sitemap could be read (${failed.url}: ${failed.reason}).` : 'The site has no sitemap.';
  }

  private async readPage(group: MapLinkResource[]): Promise<void> {
    try {
      const response = await this.options.http.exchange({
        url: this.start.href,
        method: 'GET',
        identity: this.identity,
        headers: {},
        maxBodyBytes: this.options.maxPageBytes,
        timeoutMs: this.request.timeout_ms,
        signal: this.signal,
      });
      if (response.status >= 400) {
        this.pageFailure = `HTTP ${response.status}`;
        this.options.metrics.document('page', 'failed');
        return;
      }
      this.options.metrics.document('page', 'read');
      this.links.offer(group, this.start.href, 'page');
      const page = { contentType: response.contentType, body: response.body };
      if (!isHtmlPage(page)) return;
      for (const link of extractTitledLinks(pageText(page), response.finalUrl, this.inScope)) {
        this.pageLinks++;
        this.links.offer(group, link.url, 'page', { title: link.text });
      }
    } catch (error) {
      this.pageFailure = this.failureOf(error, 'page');
    }
  }

  private async readSitemaps(): Promise<void> {
    const robots = await this.readRobots();
    const listed = robots?.sitemaps.flatMap((loc) => resolvedHttp(loc, this.start) ?? []) ?? [];
    const queue: SitemapTask[] = [...new Set(listed)].map((url) => ({ url, depth: 1, guessed: false }));
    if (queue.length === 0) {
      await this.readWellKnownSitemap();
      return;
    }
    await this.drain(queue);
  }

  /** `/sitemap.xml`, else the next well-known location, until one is read. */
  private async readWellKnownSitemap(): Promise<void> {
    for (const path of WELL_KNOWN_SITEMAPS) {
      const queue: SitemapTask[] = [{ url: new URL(path, this.start).href, depth: 1, guessed: true }];
      const before = this.sitemapsRead.size;
      await this.drain(queue);
      if (this.sitemapsRead.size > before || this.signal.aborted) return;
    }
  }

  /** Reads queued sitemaps, `SITEMAP_CONCURRENCY` at a time; an index adds its sitemaps to the queue. */
  private drain(queue: SitemapTask[]): Promise<void> {
    const seen = new Set(queue.map((task) => task.url));
    let active = 0;
    return new Promise<void>((resolve, reject) => {
      const pump = (): void => {
        while (active < SITEMAP_CONCURRENCY && queue.length > 0 && !this.signal.aborted && !this.links.full) {
          if (this.sitemapDocuments >= MAX_SITEMAP_DOCUMENTS) break;
          const task = queue.shift()!;
          this.sitemapDocuments++;
          active++;
          this.readSitemap(task).then(
            (children) => {
              for (const child of children) {
                if (seen.has(child)) continue;
                seen.add(child);
                if (task.depth >= MAX_SITEMAP_DEPTH) this.complete = false;
                else queue.push({ url: child, depth: task.depth + 1, guessed: false });
              }
              active--;
              pump();
            },
            (error: unknown) => {
              queue.length = 0;
              reject(error);
            },
          );
        }
        if (active === 0) {
          // Left unread: over the document bound, out of time, or the map is full.
          if (queue.length > 0) this.complete = false;
          resolve();
        }
      };
      pump();
    });
  }

  /** Reads one sitemap as it streams in; returns the sitemaps an index names. */
  private async readSitemap(task: SitemapTask): Promise<string[]> {
    const group = this.links.openGroup();
    this.sitemapsStarted.push(task.url);
    const children: string[] = [];
    let status = 0;
    try {
      await this.options.http.exchange({
        url: task.url,
        method: 'GET',
        identity: this.identity,
        headers: {},
        maxBodyBytes: MAX_SITEMAP_BYTES,
        timeoutMs: this.request.timeout_ms,
        signal: this.signal,
        readBody: async (chunks, response) => {
          status = response.status;
          // A site answering every path with its HTML page has no sitemap there.
          if (task.guessed && mediaTypeOf(response.contentType) === 'text/html') status = 404;
          if (status >= 400) return;
          const reader = new SitemapReader({
            onPage: (entry) => {
              this.links.offer(group, entry.loc, 'sitemap', entry.lastmod === undefined ? {} : { lastmod: entry.lastmod }, task.url);
            },
            onSitemap: (entry) => {
              const url = resolvedHttp(entry.loc, task.url);
              if (url) children.push(url);
            },
          });
          for await (const chunk of gunzippedWhenCompressed(chunks, MAX_SITEMAP_BYTES)) {
            reader.write(chunk);
            // Enough read: the rest of the document is dropped (and its connection with it).
            if (this.links.full) return;
          }
          reader.end();
        },
      });
    } catch (error) {
      const reason = this.failureOf(error, 'sitemap');
      if (!(error instanceof MapDeadline) && !this.signal.aborted) this.sitemapsFailed.push({ url: task.url, reason });
      return children;
    }
    if (status >= 400) {
      this.options.metrics.document('sitemap', task.guessed ? 'missing' : 'failed');
      if (!task.guessed) this.sitemapsFailed.push({ url: task.url, reason: `HTTP ${status}` });
      return [];
    }
    this.options.metrics.document('sitemap', 'read');
    this.sitemapsRead.add(task.url);
    return children;
  }

  private async readRobots(): Promise<RobotsTxt | undefined> {
    let read: RobotsRead;
    try {
      read = await readRobotsTxt(this.options.http, this.identity, this.start.origin, {
        timeoutMs: Math.min(ROBOTS_TIMEOUT_MS, this.request.timeout_ms),
        signal: this.signal,
      });
    } catch (error) {
      if (!this.signal.aborted) throw error;
      this.failureOf(error, 'robots');
      this.robotsState = 'failed';
      return undefined;
    }
    this.robotsState = read.state;
    this.options.metrics.document('robots', read.state);
    return read.state === 'read' ? read.robots : undefined;
  }

  /** Words for a tenant on why a source failed; counts it, and remembers a refusal of the site itself. */
  private failureOf(error: unknown, kind: MapDocumentKind): string {
    if (this.signal.aborted) {
      this.complete = false;
      this.options.metrics.document(kind, 'timed_out');
      return 'the map ran out of time';
    }
    if (!(error instanceof EgressError)) throw error;
    this.options.metrics.document(kind, 'failed');
    if (error.code === EgressErrorCode.BlockedAddress && kind === 'page') this.refusal = `${error.message}.`;
    return error.message;
  }
}

/** `loc` resolved against `base`, when it is an http(s) URL. */
function resolvedHttp(loc: string, base: string | URL): string | undefined {
  try {
    const url = new URL(loc, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}
