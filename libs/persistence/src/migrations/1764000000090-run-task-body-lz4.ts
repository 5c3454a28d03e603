import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Task result bodies (a page each, most a few KB) are compressed with lz4 instead of Postgres's
 * default pglz: a body over ~2 KB is compressed as its row is written, once per task on the batch
 * hot path, and lz4 costs a fraction of pglz's CPU for a little less saving. Rows written before
 * keep pglz (both read back the same). A server built without lz4 keeps pglz.
 */
export class RunTaskBodyLz41764000000090 implements MigrationInterface {
  name = 'RunTaskBodyLz41764000000090';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`DO $$
      BEGIN
        ALTER TABLE run_tasks ALTER COLUMN body SET COMPRESSION lz4;
      EXCEPTION WHEN feature_not_supported THEN
        RAISE NOTICE 'lz4 is not available: run_tasks.body stays pglz';
      END $$`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE run_tasks ALTER COLUMN body SET COMPRESSION pglz`);
  }
}
