import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Batch API's HTTP side: the staging table of large submissions, and the foreign key that
 * `job_schedules` could not have before the jobs table existed.
 */
export class BatchApi1764000000050 implements MigrationInterface {
  name = 'BatchApi1764000000050';

  async up(q: QueryRunner): Promise<void> {
    // A submission of 10,000 tasks or more is answered 202 once the job, its run and this row are
    // written; its task rows follow in chunks. The row holds the checked tasks, so an ingest cut off
    // by a crash is finished by whichever gateway next finds the lease expired (`next_seq` onwards;
    // the chunk inserts are idempotent). It is deleted in the transaction that makes the job ready.
    await q.query(`
      CREATE TABLE job_ingests (
        job_id uuid PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        run_id uuid REFERENCES job_runs (id) ON DELETE SET NULL,
        -- JSON array of the checked tasks (TOAST-compressed).
        tasks text NOT NULL,
        task_count integer NOT NULL,
        next_seq integer NOT NULL DEFAULT 1,
        lease_token uuid NOT NULL,
        lease_until timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX job_ingests_lease ON job_ingests (lease_until)`);
    // A schedule without its job can never fire; none can exist outside development databases.
    await q.query(`DELETE FROM job_schedules s WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.id = s.job_id)`);
    await q.query(
      `ALTER TABLE job_schedules ADD CONSTRAINT job_schedules_job_id_fkey FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE job_schedules DROP CONSTRAINT IF EXISTS job_schedules_job_id_fkey`);
    await q.query(`DROP TABLE IF EXISTS job_ingests`);
  }
}
