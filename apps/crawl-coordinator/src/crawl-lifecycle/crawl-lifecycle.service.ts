import { Injectable } from '@nestjs/common';
import type { Sql } from '@trawl/persistence';
import { CrawlLifecycleRepository } from './crawl-lifecycle.repository';
import { CrawlRow } from './crawl.types';
import { CrawlVerdict, decideCrawl, type SeedOutcome } from './crawl-completion';
import { CoordinatorMetrics } from '../coordinator.metrics';

/** Decides, inside the caller's transaction and under the crawl's row lock, whether a crawl is over. */
@Injectable()
export class CrawlLifecycleService {
  constructor(
    private readonly crawls: CrawlLifecycleRepository,
    private readonly metrics: CoordinatorMetrics,
  ) {}

  async settle(sql: Sql, crawl: CrawlRow, seed: SeedOutcome = 'fetched'): Promise<CrawlVerdict> {
    if (crawl.status !== 'running') return { kind: 'continue' };
    // Kept pages waiting for their HTML matter only once max_items is reached (decideCrawl).
    const frontier = await this.crawls.frontierState(sql, crawl.id, crawl.itemsFound >= crawl.maxItems);
    const verdict = decideCrawl({
      itemsFound: crawl.itemsFound,
      maxItems: crawl.maxItems,
      pagesDispatched: crawl.pagesDispatched,
      maxPages: crawl.maxPages,
      seed,
      sitemapPending: crawl.sitemapState === 'pending',
      sitemapUrls: crawl.sitemapUrls,
      ...frontier,
    });
    if (verdict.kind !== 'continue') {
      await this.crawls.finish(sql, crawl, verdict);
      crawl.status = verdict.kind;
      this.metrics.crawlsFinished.inc({
        status: verdict.kind,
        reason: verdict.kind === 'completed' ? (verdict.stopReason ?? 'exhausted') : verdict.code,
      });
    }
    return verdict;
  }
}
