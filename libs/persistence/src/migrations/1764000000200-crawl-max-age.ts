import { MigrationInterface, QueryRunner } from 'typeorm';

/** Crawls whose pages may come from kept copies (`max_age`, seconds; null: every page fetched). */
export class CrawlMaxAge1764000000200 implements MigrationInterface {
  name = 'CrawlMaxAge1764000000200';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crawls ADD COLUMN max_age integer CHECK (max_age > 0)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crawls DROP COLUMN IF EXISTS max_age`);
  }
}
