import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Crawls seeded from sitemaps (`sitemap`) and polite to robots.txt (`respect_robots`), with what
 * the coordinator keeps of both: whether the sitemaps are read yet (and who reads them), how many
 * URLs they gave and robots.txt refused, and the `Crawl-delay` the crawl's dispatch keeps.
 */
export class CrawlSitemapsRobots1764000000180 implements MigrationInterface {
  name = 'CrawlSitemapsRobots1764000000180';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE crawls
        ADD COLUMN sitemap text NOT NULL DEFAULT 'skip' CHECK (sitemap IN ('include', 'only', 'skip')),
        ADD COLUMN respect_robots boolean NOT NULL DEFAULT false,
        ADD COLUMN sitemap_state text CHECK (sitemap_state IN ('pending', 'read', 'failed')),
        ADD COLUMN sitemap_claimed_until timestamptz,
        ADD COLUMN sitemap_attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN sitemap_urls integer NOT NULL DEFAULT 0,
        ADD COLUMN robots_disallowed integer NOT NULL DEFAULT 0,
        ADD COLUMN crawl_delay_ms integer,
        ADD COLUMN next_dispatch_at timestamptz`);
    // The seeders' query: running crawls whose sitemaps wait.
    await q.query(`CREATE INDEX crawls_sitemap_pending ON crawls (created_at) WHERE sitemap_state = 'pending'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS crawls_sitemap_pending`);
    await q.query(`
      ALTER TABLE crawls
        DROP COLUMN IF EXISTS sitemap, DROP COLUMN IF EXISTS respect_robots, DROP COLUMN IF EXISTS sitemap_state,
        DROP COLUMN IF EXISTS sitemap_claimed_until, DROP COLUMN IF EXISTS sitemap_attempts, DROP COLUMN IF EXISTS sitemap_urls, DROP COLUMN IF EXISTS robots_disallowed,
        DROP COLUMN IF EXISTS crawl_delay_ms, DROP COLUMN IF EXISTS next_dispatch_at`);
  }
}
