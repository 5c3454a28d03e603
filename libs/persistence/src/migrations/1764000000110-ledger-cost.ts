import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each ledger row keeps what its credits cost in US dollars when they were billed, so a run's
 * actual cost (`GET /v1/jobs/{id}/runs/{run_id}/cost`) does not change with a later price change.
 * Null where no price applies (crawl pages) and on rows billed before this column; those are
 * priced at the price of the moment they are read.
 */
export class LedgerCost1764000000110 implements MigrationInterface {
  name = 'LedgerCost1764000000110';

  async up(q: QueryRunner): Promise<void> {
    // Nullable without a default: adding it rewrites nothing, however long the ledger is.
    await q.query(`ALTER TABLE credit_ledger ADD COLUMN cost_usd numeric`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE credit_ledger DROP COLUMN cost_usd`);
  }
}
