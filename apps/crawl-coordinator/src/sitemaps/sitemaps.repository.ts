import { Injectable } from '@nestjs/common';
import type { CrawlsRow, Sql } from '@trawl/persistence';

/** A crawl whose sitemaps this coordinator has claimed to read. */
export interface SitemapClaim {
  id: CrawlsRow['id'];
  tenantId: CrawlsRow['tenant_id'];
  url: CrawlsRow['url'];
  respectRobots: CrawlsRow['respect_robots'];
  /** Reads started, this one included. */
  attempts: CrawlsRow['sitemap_attempts'];
}

/** SQL of the crawls' sitemap reads: who reads them, and how the read ended. */
@Injectable()
export class SitemapsRepository {
  /**
   * Claims the oldest running crawl whose sitemaps wait and no coordinator reads (or whose reader's
   * claim ran out: it died, or NATS lost its answer), for `claimMs`.
   */
  async claimNext(sql: Sql, claimMs: number): Promise<SitemapClaim | undefined> {
    const [row] = await sql.query<SitemapClaim>(
      `UPDATE crawls c SET sitemap_claimed_until = now() + make_interval(secs => $1::double precision / 1000),
                           sitemap_attempts = c.sitemap_attempts + 1
       WHERE c.id = (
         SELECT id FROM crawls
         WHERE sitemap_state = 'pending' AND status = 'running' AND (sitemap_claimed_until IS NULL OR sitemap_claimed_until < now())
         ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
       RETURNING c.id, c.tenant_id AS "tenantId", c.url, c.respect_robots AS "respectRobots", c.sitemap_attempts AS attempts`,
      [claimMs],
    );
    return row;
  }

  /** The read ended (`read` with the URLs it gave, or `failed`); the caller holds the crawl's row lock. */
  async finish(sql: Sql, crawlId: string, state: 'read' | 'failed', urls: number, robotsDisallowed: number): Promise<void> {
    await sql.query(
      `UPDATE crawls SET sitemap_state = $2, sitemap_urls = $3, robots_disallowed = robots_disallowed + $4, sitemap_claimed_until = NULL
       WHERE id = $1 AND sitemap_state = 'pending'`,
      [crawlId, state, urls, robotsDisallowed],
    );
  }

  /** Gives the claim back early (the workers were busy): another pass may try again after `retryMs`. */
  async retryLater(sql: Sql, crawlId: string, retryMs: number): Promise<void> {
    await sql.query(
      `UPDATE crawls SET sitemap_claimed_until = now() + make_interval(secs => $2::double precision / 1000)
       WHERE id = $1 AND sitemap_state = 'pending'`,
      [crawlId, retryMs],
    );
  }
}
