import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A run's cost (`stats.spend.cost`, US dollars), raised with its credits in the transaction that
 * bills them, at the price per credit of that moment: a later price change does not rewrite what a
 * finished run cost.
 */
export class BatchRunCost1764000000040 implements MigrationInterface {
  name = 'BatchRunCost1764000000040';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_runs ADD COLUMN cost numeric(20, 6) NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_runs DROP COLUMN IF EXISTS cost`);
  }
}
