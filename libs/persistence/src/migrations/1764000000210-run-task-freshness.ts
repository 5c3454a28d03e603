import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What a batch task's answer said of freshness: `cache` (`max_age`: a kept copy or fetched now) and
 * `change_status` (`change_tracking`: against the tenant's last version of the URL), and whether a
 * crawl page came from a kept copy (`crawl_frontier.page_cache`). Null when the task did not ask. Nullable without a default, so adding them rewrites no row; the partial index
 * holds only tracked rows.
 */
export class RunTaskFreshness1764000000210 implements MigrationInterface {
  name = 'RunTaskFreshness1764000000210';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE run_tasks
         ADD COLUMN cache text CHECK (cache IN ('hit', 'miss')),
         ADD COLUMN change_status text CHECK (change_status IN ('new', 'same', 'changed', 'removed'))`,
    );
    // A run's end reads its tracked rows (a monitor's webhook); most runs track nothing and find none.
    await q.query(`CREATE INDEX run_tasks_tracked ON run_tasks (run_id, seq) WHERE change_status IS NOT NULL`);
    // A crawl page's last fetch, likewise (crawls with max_age).
    await q.query(`ALTER TABLE crawl_frontier ADD COLUMN page_cache text CHECK (page_cache IN ('hit', 'miss'))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crawl_frontier DROP COLUMN IF EXISTS page_cache`);
    await q.query(`DROP INDEX IF EXISTS run_tasks_tracked`);
    await q.query(`ALTER TABLE run_tasks DROP COLUMN IF EXISTS change_status, DROP COLUMN IF EXISTS cache`);
  }
}
