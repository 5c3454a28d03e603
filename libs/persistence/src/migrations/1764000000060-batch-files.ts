import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * CSV inputs and bulk exports of the Batch API (spec-batch-api §2 "CSV input slot", §8): the rows
 * of an uploaded CSV wait in a staging table until a job takes them; an export records which run
 * it archives and until when it can be downloaded.
 */
export class BatchFiles1764000000060 implements MigrationInterface {
  name = 'BatchFiles1764000000060';

  async up(q: QueryRunner): Promise<void> {
    // Rows of an uploaded CSV, checked and normalised; copied into job_tasks by the job that uses the input.
    await q.query(`
      CREATE TABLE job_input_rows (
        input_id uuid NOT NULL REFERENCES job_inputs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        url text NOT NULL,
        external_id text,
        PRIMARY KEY (input_id, seq)
      )`);
    await q.query(`ALTER TABLE job_inputs ADD COLUMN uploaded_at timestamptz, ADD COLUMN used_by_job_id uuid`);
    await q.query(`
      CREATE TABLE job_exports (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        run_id uuid NOT NULL REFERENCES job_runs (id) ON DELETE CASCADE,
        format text NOT NULL CHECK (format IN ('tar.gz')),
        body_bytes bigint NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX job_exports_by_job ON job_exports (tenant_id, job_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS job_exports`);
    await q.query(`ALTER TABLE job_inputs DROP COLUMN IF EXISTS uploaded_at, DROP COLUMN IF EXISTS used_by_job_id`);
    await q.query(`DROP TABLE IF EXISTS job_input_rows`);
  }
}
