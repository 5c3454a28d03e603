import { MigrationInterface, QueryRunner } from 'typeorm';

/** A CSV input's delimiter and quote character (the public Node SDK sends both), with the defaults of RFC 4180. */
export class CsvDialect1764000000160 implements MigrationInterface {
  name = 'CsvDialect1764000000160';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_inputs ADD COLUMN delimiter text NOT NULL DEFAULT ',', ADD COLUMN quote text NOT NULL DEFAULT '"'`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_inputs DROP COLUMN IF EXISTS delimiter, DROP COLUMN IF EXISTS quote`);
  }
}
