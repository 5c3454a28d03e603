import { Inject, Injectable } from '@nestjs/common';
import { CrawlPageResultV1, CrawlPageTaskV1, MAX_DISALLOWED_LINKS_TOLD } from '@trawl/contracts';
import { isSameSite } from '@trawl/egress';
import { Logger } from '@trawl/observability';
import { ExtractedLinks, extractLinks } from '../links/link-extractor';
import type { PageFetchResult } from '../page-fetch/page-judgement';
import { CrawlPageFetcher } from './crawl-page-fetcher';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { fitResult, MAX_RESULT_BYTES } from './result-size';
import { RobotsCache } from '../site-map/robots-cache';

/** A signal that never aborts, for calls made without one. */
const NEVER = new AbortController().signal;

export const CRAWL_PAGE_SETTINGS = Symbol('CRAWL_PAGE_SETTINGS');

export interface CrawlPageSettings {
  /** Largest result published, in bytes of JSON (default `MAX_RESULT_BYTES`, 900 KiB). */
  maxResultBytes?: number;
}

/** A page's answer: its result, and its HTML apart when too large to travel inside it. */
export interface CrawlPageAnswer {
  result: CrawlPageResultV1;
  /** HTML to spill and reference from `result.content_ref` (the result then has no `content`). */
  spill?: string;
}

/**
 * Turns a crawl's page task into its page result: fetch the page (adaptive stealth, see
 * CrawlPageFetcher), take its in-scope links when the crawl opens it, keep its HTML when the crawl
 * keeps content; for a crawl that obeys robots.txt, neither fetch a disallowed page nor pass on a
 * disallowed link. Knows nothing of NATS.
 */
@Injectable()
export class CrawlPageService {
  constructor(
    private readonly pages: CrawlPageFetcher,
    private readonly robots: RobotsCache,
    @Inject(CRAWL_PAGE_SETTINGS) private readonly settings: CrawlPageSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * @throws PageFetchError `Aborted` when `signal` aborts the fetch, `Busy` when no browser was
   *   free: the task is handed back, not answered.
   */
  async fetchPage(task: CrawlPageTaskV1, signal?: AbortSignal): Promise<CrawlPageAnswer> {
    const polite = task.respect_robots === true ? this.robots : undefined;
    const pageRules = polite && (await polite.rulesFor(new URL(task.url), task.tenant_id, signal ?? NEVER));
    if (pageRules && !pageRules.allows(new URL(task.url))) return { result: this.notFetched(task, 'disallowed', 'robots_txt') };
    const page = await this.pages.fetchPage(task, task.wants_links || task.wants_content ? 'html' : 'none', signal);
    let extracted = task.wants_links ? linksOf(page, task.scope_domain) : undefined;
    let robotsDisallowed: string[] | undefined;
    if (polite && extracted) {
      const allowed = await polite.allowed(extracted.links, (link) => link, task.tenant_id, signal ?? NEVER);
      const kept = new Set(allowed);
      robotsDisallowed = extracted.links.filter((link) => !kept.has(link));
      extracted = { ...extracted, links: allowed };
    }
    const crawlDelaySeconds = pageRules ? pageRules.crawlDelaySeconds : undefined;
    const result: CrawlPageResultV1 = {
      v: 1,
      crawl_id: task.crawl_id,
      frontier_id: task.frontier_id,
      attempt: task.attempt,
      outcome: page.outcome,
      status_code: page.statusCode,
      final_url: page.finalUrl,
      error: page.error,
      credits: page.credits,
      tier: page.tier,
      opened: extracted !== undefined,
      wanted_links: task.wants_links,
      links: extracted?.links ?? [],
      duplicate_links: extracted?.duplicateLinks ?? 0,
      robots_disallowed: robotsDisallowed?.length,
      disallowed_links: robotsDisallowed && robotsDisallowed.length > 0 ? robotsDisallowed.slice(0, MAX_DISALLOWED_LINKS_TOLD) : undefined,
      crawl_delay_ms: crawlDelaySeconds === undefined ? undefined : Math.round(crawlDelaySeconds * 1000),
      content: task.wants_content ? storableText(page.html) : undefined,
      content_type: page.contentType,
      cache: page.cache,
    };
    const fitted = fitResult(withoutUndefined(result), this.settings.maxResultBytes ?? MAX_RESULT_BYTES);
    if (fitted.droppedLinks > 0) {
      this.logger.warn(
        { crawl_id: task.crawl_id, frontier_id: task.frontier_id, url: task.url, dropped_links: fitted.droppedLinks },
        'page result too large for one message; left links out',
      );
    }
    return fitted.spill === undefined ? { result: fitted.result } : { result: fitted.result, spill: fitted.spill };
  }

  /** The answer for a task of a stopped crawl: nothing fetched, nothing billed. */
  skipped(task: CrawlPageTaskV1): CrawlPageResultV1 {
    return this.notFetched(task, 'skipped');
  }

  private notFetched(task: CrawlPageTaskV1, outcome: 'skipped' | 'disallowed', error?: string): CrawlPageResultV1 {
    return {
      v: 1,
      crawl_id: task.crawl_id,
      frontier_id: task.frontier_id,
      attempt: task.attempt,
      outcome,
      ...(error !== undefined && { error }),
      credits: 0,
      tier: 'basic',
      opened: false,
      wanted_links: task.wants_links,
      links: [],
      duplicate_links: 0,
    };
  }
}

/**
 * The page's links, when it can be opened: fetched as HTML, and still on the crawl's site. A page
 * that redirected off the site is fetched (and billed) but not opened, since its links belong to
 * another site (Crawl spec §1: the crawl stays on the start URL's domain).
 */
function linksOf(page: PageFetchResult, scopeDomain: string): ExtractedLinks | undefined {
  if (page.html === undefined || page.finalUrl === undefined) return undefined;
  if (!isSameSite(new URL(page.finalUrl).hostname, scopeDomain)) return undefined;
  return extractLinks(page.html, page.finalUrl, scopeDomain);
}

/**
 * JSON drops undefined members anyway; dropping them here keeps size checks and tests exact. In
 * place: `value` is a result just built, and a copy per page showed in a crawl worker's profile.
 */
function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) if (value[key] === undefined) delete value[key];
  return value;
}

/**
 * Postgres text cannot hold U+0000; HTML parsers read it as U+FFFD anyway, so the kept page says
 * what a browser would show instead of failing its crawl.
 */
export function storableText(html: string | undefined): string | undefined {
  return html?.includes('\u0000') ? html.replace(/\u0000/g, '\uFFFD') : html;
}
