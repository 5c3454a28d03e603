import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A task's attempts (issue 30: the public Node SDK's task history): when each dispatch of a run
 * task started and ended and how it came out. `run_tasks.started_at` is the current claim's start,
 * copied into the attempt's row when its answer is recorded (or its lease runs out).
 */
export class RunTaskAttempts1764000000150 implements MigrationInterface {
  name = 'RunTaskAttempts1764000000150';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE run_tasks ADD COLUMN started_at timestamptz`);
    await q.query(`
      CREATE TABLE run_task_attempts (
        run_id uuid NOT NULL REFERENCES job_runs (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        attempt integer NOT NULL,
        started_at timestamptz,
        ended_at timestamptz NOT NULL,
        outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'lease_expired')),
        error_code text,
        error_detail text,
        credits integer NOT NULL DEFAULT 0,
        PRIMARY KEY (run_id, seq, attempt)
      )`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS run_task_attempts`);
    await q.query(`ALTER TABLE run_tasks DROP COLUMN IF EXISTS started_at`);
  }
}
