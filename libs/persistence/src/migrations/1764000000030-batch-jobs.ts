import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Batch API (docs/design-batch.md): a job is a template of tasks; each run executes them into
 * run tasks whose rows hold the results. Run counters change in the same transaction as the run
 * tasks they count, so `completed = successful + failed` holds at every instant.
 */
export class BatchJobs1764000000030 implements MigrationInterface {
  name = 'BatchJobs1764000000030';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE jobs (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN ('regular', 'scheduled')),
        status text NOT NULL CHECK (status IN ('open', 'closed')),
        service_params jsonb NOT NULL,
        webhook_url text,
        webhook_signature boolean NOT NULL DEFAULT false,
        -- 'ingesting' while the rows of a large submission or a CSV are still being written.
        ingest_state text NOT NULL DEFAULT 'ready' CHECK (ingest_state IN ('ready', 'ingesting')),
        file_input_id uuid,
        task_count integer NOT NULL DEFAULT 0,
        idempotency_key text,
        latest_run_id uuid,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One use per key (spec §4 POST /jobs): a reuse is refused, never replayed.
    await q.query(`CREATE UNIQUE INDEX jobs_idempotency ON jobs (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`);
    await q.query(`CREATE INDEX jobs_by_tenant ON jobs (tenant_id, created_at DESC, id DESC)`);
    await q.query(`
      CREATE TABLE job_tasks (
        job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        url text NOT NULL,
        method text NOT NULL DEFAULT 'GET' CHECK (method IN ('GET', 'POST')),
        body text,
        external_id text,
        metadata jsonb,
        service_params jsonb,
        PRIMARY KEY (job_id, seq)
      )`);
    await q.query(`
      CREATE TABLE job_runs (
        id uuid PRIMARY KEY,
        job_id uuid NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        run_sequence integer NOT NULL,
        kind text NOT NULL CHECK (kind IN ('initial', 'rerun', 'retry_failed', 'scheduled')),
        status text NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'completed', 'stopped', 'failed', 'deleted')),
        total integer NOT NULL DEFAULT 0,
        successful integer NOT NULL DEFAULT 0,
        failed integer NOT NULL DEFAULT 0,
        credits bigint NOT NULL DEFAULT 0,
        failure_reason text,
        failure_detail text,
        source_run_id uuid REFERENCES job_runs (id) ON DELETE SET NULL,
        trace_parent text,
        created_at timestamptz NOT NULL DEFAULT now(),
        started_at timestamptz,
        finished_at timestamptz,
        UNIQUE (job_id, run_sequence),
        CHECK (successful + failed <= total)
      )`);
    await q.query(`CREATE INDEX job_runs_active ON job_runs (tenant_id) WHERE status IN ('queued', 'running', 'paused')`);
    await q.query(`ALTER TABLE jobs ADD FOREIGN KEY (latest_run_id) REFERENCES job_runs (id) ON DELETE SET NULL`);
    await q.query(`
      CREATE TABLE run_tasks (
        run_id uuid NOT NULL REFERENCES job_runs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        state text NOT NULL CHECK (state IN ('queued', 'dispatched', 'succeeded', 'failed', 'carried')),
        attempt integer NOT NULL DEFAULT 0,
        lease_until timestamptz,
        status_code integer,
        output_format text,
        content_type text,
        body bytea,
        tier text,
        credits integer NOT NULL DEFAULT 0,
        error_code text,
        error_detail text,
        finished_at timestamptz,
        PRIMARY KEY (run_id, seq)
      )`);
    await q.query(`CREATE INDEX run_tasks_queued ON run_tasks (run_id, seq) WHERE state = 'queued'`);
    await q.query(`CREATE INDEX run_tasks_dispatched ON run_tasks (lease_until) WHERE state = 'dispatched'`);
    await q.query(`
      CREATE TABLE job_inputs (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        header boolean NOT NULL,
        url_field text NOT NULL,
        external_id_field text,
        state text NOT NULL CHECK (state IN ('awaiting_upload', 'uploaded', 'used', 'invalid')),
        row_count integer,
        upload_bytes bigint,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const table of ['job_inputs', 'run_tasks', 'job_tasks']) await q.query(`DROP TABLE IF EXISTS ${table}`);
    await q.query(`ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_latest_run_id_fkey`);
    await q.query(`DROP TABLE IF EXISTS job_runs`);
    await q.query(`DROP TABLE IF EXISTS jobs`);
  }
}
