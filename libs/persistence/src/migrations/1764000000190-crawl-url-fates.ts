import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a crawl keeps to say where each URL it saw went (`GET /v1/crawls/{id}/urls`): each page's
 * outcome and failure code, and the URLs it saw but did not keep for a reason no rule recomputes
 * (over `max_items`, disallowed by robots.txt), a bounded number per crawl.
 */
export class CrawlUrlFates1764000000190 implements MigrationInterface {
  name = 'CrawlUrlFates1764000000190';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crawl_frontier ADD COLUMN page_outcome text, ADD COLUMN page_error text`);
    await q.query(`ALTER TABLE crawls ADD COLUMN skipped_recorded integer NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE crawl_skipped_urls (
        crawl_id uuid NOT NULL REFERENCES crawls (id) ON DELETE CASCADE,
        url_key bytea NOT NULL,
        url text NOT NULL,
        reason text NOT NULL CHECK (reason IN ('over_max_items', 'robots_disallowed')),
        found_on text NOT NULL,
        PRIMARY KEY (crawl_id, url_key)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS crawl_skipped_urls`);
    await q.query(`ALTER TABLE crawls DROP COLUMN IF EXISTS skipped_recorded`);
    await q.query(`ALTER TABLE crawl_frontier DROP COLUMN IF EXISTS page_outcome, DROP COLUMN IF EXISTS page_error`);
  }
}
