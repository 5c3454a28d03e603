import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The requests of a tenant's rate window that the statement which last counted in it set aside for
 * a gateway replica to admit on its own (its allotment): the replica learns how many it got from
 * the row it wrote, in the same statement.
 */
export class RateWindowGrants1764000000170 implements MigrationInterface {
  name = 'RateWindowGrants1764000000170';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE fetch_rate_windows ADD COLUMN granted integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE fetch_rate_windows DROP COLUMN IF EXISTS granted`);
  }
}
