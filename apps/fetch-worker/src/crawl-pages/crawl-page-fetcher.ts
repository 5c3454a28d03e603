import { Tier } from '@trawl/billing';
import type { CrawlPageTaskV1, FetchOptionsV1, FetchRequestV1 } from '@trawl/contracts';
import { BrowserError, BrowserErrorCode } from '../browser/browser.errors';
import { targetCallsOf, type TargetFetcher } from '../target-fetch/target-fetcher';
import { verdictOfError, type PageVerdict } from '../page-fetch/page-outcome';
import { PageFetchError, PageFetchErrorCode } from '../page-fetch/page-fetch.errors';
import { bodyWanted, judgePage, type BodyReading, type PageFetchResult } from '../page-fetch/page-judgement';
import { StealthError } from '../stealth';
import { PolitenessError } from '../politeness';
import { NO_PAGE_COPIES, type PageCopyCache } from '../page-copies';
import type { WorkerMetrics } from '../worker.metrics';

/** Reason of a page that every tier the crawl could use was blocked on (free, as a Fetch `REQS002`). */
const BLOCKED = 'blocked';

/** Options of a crawl page as a Fetch request: nothing but adaptive stealth (Crawl spec §1). */
const CRAWL_PAGE_OPTIONS: FetchOptionsV1 = {
  js_render: false,
  premium_proxy: false,
  mode: 'auto',
  json_response: false,
  original_status: false,
};

/** Tiers of a task queued by a coordinator older than `auto_tiers`: what crawls had then. */
const TIERS_OF_OLD_TASKS: readonly Tier[] = [Tier.Basic];

export interface CrawlPageFetcherDeps {
  /** The Fetch API's tiers, proxies and adaptive stealth: the worker's one way of loading a page. */
  target: TargetFetcher;
  /** Whole page load, every tier tried included, in ms (`PAGE_TIMEOUT_MS`). */
  pageTimeoutMs: number;
  /** Largest body read, in bytes (`MAX_BODY_BYTES`). */
  maxBodyBytes: number;
  /** `trawl_worker_fetch_seconds`, observed by tier and outcome. */
  metrics?: WorkerMetrics;
  /** Kept copies, for crawls with `max_age` (default: none; every page fetched). */
  copies?: Pick<PageCopyCache, 'recall' | 'keep'>;
}

/**
 * Loads a crawl's page as one Fetch request in adaptive stealth mode (Crawl spec §1 and its cost
 * rules), through the same `TargetFetcher` as the Fetch API: from the cheapest tier, or the one
 * remembered for the domain, escalating while the site blocks, through the tiers the tenant's plan
 * allows (`auto_tiers`), billed at the tier that served. Only HTML bodies are downloaded.
 */
export class CrawlPageFetcher {
  constructor(private readonly deps: CrawlPageFetcherDeps) {}

  /**
   * @throws PageFetchError `Aborted` when `signal` aborted the load, `Busy` when every browser
   *   stayed busy (the task is handed back, not failed).
   */
  async fetchPage(task: CrawlPageTaskV1, read: BodyReading, signal?: AbortSignal): Promise<PageFetchResult> {
    const stop = signal ?? new AbortController().signal;
    const started = performance.now();
    const request: FetchRequestV1 = {
      v: 1,
      request_id: `crawl:${task.crawl_id}:${task.frontier_id}:${task.attempt}`,
      tenant_id: task.tenant_id,
      url: task.url,
      method: 'GET',
      headers: {},
      options: task.max_age === undefined ? CRAWL_PAGE_OPTIONS : { ...CRAWL_PAGE_OPTIONS, max_age: task.max_age },
      deadline_at: Date.now() + this.deps.pageTimeoutMs,
      max_body_bytes: this.deps.maxBodyBytes,
      auto_tiers: task.auto_tiers ?? [...TIERS_OF_OLD_TASKS],
    };
    try {
      // Only crawls with max_age touch the copies: the others pay no store call per page.
      const copies = task.max_age === undefined ? undefined : (this.deps.copies ?? NO_PAGE_COPIES);
      // A kept copy is billed as a basic page, whatever fetching it cost (docs/decisions/page-copies.md).
      const copy = await copies?.recall(request, 'crawl');
      if (copy) return this.observed({ ...judgePage(copy.page, Tier.Basic, read), durationMs: performance.now() - started, cache: 'hit' });
      const calls = targetCallsOf(request, this.deps.maxBodyBytes, 0, stop, bodyWanted(read));
      const page = await this.deps.target.fetch(request, calls, stop);
      await copies?.keep(request, page, 'crawl');
      return this.observed({
        ...judgePage(page, page.tier, read),
        durationMs: performance.now() - started,
        ...(copies && { cache: 'miss' as const }),
      });
    } catch (error) {
      if (stop.aborted) throw new PageFetchError(PageFetchErrorCode.Aborted, `Fetching ${task.url} was aborted`, { cause: error });
      if (error instanceof BrowserError && (error.code === BrowserErrorCode.PoolBusy || error.code === BrowserErrorCode.PoolClosed)) {
        throw new PageFetchError(PageFetchErrorCode.Busy, `No browser was free for ${task.url}`, { cause: error });
      }
      if (error instanceof PolitenessError) {
        // Spared for its host (a per-host limit, or a 429's pause): offered again when it may go.
        throw new PageFetchError(PageFetchErrorCode.Busy, error.message, { cause: error, retryAfterMs: error.retryAfterMs });
      }
      // Nothing served: free, whatever was tried (Crawl spec cost rule 2).
      return this.observed({ ...verdictOfFailure(error), tier: Tier.Basic, credits: 0, durationMs: performance.now() - started });
    }
  }

  private observed(result: PageFetchResult): PageFetchResult {
    this.deps.metrics?.fetchSeconds.observe({ tier: result.tier, outcome: result.outcome }, result.durationMs / 1000);
    return result;
  }
}

/** A page no tier served: blocked everywhere, or never answered (egress refusal, timeout, a broken browser). */
function verdictOfFailure(error: unknown): PageVerdict {
  if (error instanceof StealthError) return { outcome: 'failed', error: BLOCKED };
  if (error instanceof BrowserError) return { outcome: 'failed', error: `browser_${error.code}` };
  return verdictOfError(error);
}
