import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Schedules of scheduled jobs and their firings (spec-batch-api §2 "Schedule", §3). The singleton that
 * fires them is leader-elected on the `leases` table of the init migration.
 */
export class Schedules1764000000020 implements MigrationInterface {
  name = 'Schedules1764000000020';

  async up(q: QueryRunner): Promise<void> {
    // One row per scheduled job. `schedule` is the API's object as parsed by `scheduleSchema`
    // (@trawl/contracts); the gateway writes the row (timing columns from @trawl/scheduling's
    // `scheduleOnReplace` / `nextDueOnStateChange`), the scheduler advances `next_due_at` as it fires.
    // job_id carries no foreign key yet: the jobs table arrives with the Batch API's own migration.
    await q.query(`
      CREATE TABLE job_schedules (
        job_id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        schedule jsonb NOT NULL,
        state text NOT NULL CHECK (state IN ('active', 'paused')),
        -- Origin of a rate's grid: creation or last replacement of the schedule.
        anchor_at timestamptz NOT NULL,
        -- NULL: paused, or nothing left to fire (an \`at\` that has fired).
        next_due_at timestamptz,
        last_due_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX job_schedules_due ON job_schedules (next_due_at) WHERE state = 'active' AND next_due_at IS NOT NULL`);
    await q.query(`CREATE INDEX job_schedules_tenant ON job_schedules (tenant_id)`);
    // One row per due time the scheduler dealt with, fired or skipped. UNIQUE (job_id, due_at) is the
    // firing's idempotency key: even two leaders (a split brain around a lease expiry) record, and
    // start, at most one run per due time.
    await q.query(`
      CREATE TABLE schedule_firings (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
        job_id uuid NOT NULL REFERENCES job_schedules (job_id) ON DELETE CASCADE,
        due_at timestamptz NOT NULL,
        fired_at timestamptz NOT NULL,
        outcome text NOT NULL CHECK (outcome IN (
          'started', 'skipped_missed', 'skipped_previous_running', 'skipped_quota', 'skipped_job_unavailable'
        )),
        run_id uuid,
        -- The leader's lease epoch when it wrote the row.
        leader_epoch bigint NOT NULL,
        UNIQUE (job_id, due_at)
      )`);
    await q.query(`CREATE INDEX schedule_firings_tenant_job ON schedule_firings (tenant_id, job_id, due_at DESC)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS schedule_firings`);
    await q.query(`DROP TABLE IF EXISTS job_schedules`);
  }
}
