import { type JobIngestState, type JobType, type RunKind, RUNS_IN_FLIGHT } from '@trawl/contracts';

export { RUNS_IN_FLIGHT, type RunInFlightStatus } from '@trawl/contracts';
import type { Sql } from '../database';

export interface NewRun {
  id: string;
  jobId: string;
  tenantId: string;
  kind: RunKind;
  total: number;
  traceParent: string | undefined;
  /** The run a rerun or retry-failed run was made from. */
  sourceRunId?: string;
}

/**
 * `RUNS_IN_FLIGHT` as a SQL list (`'queued', 'running', 'paused'`), for predicates that must match
 * the partial index `job_runs_active` word for word (a parameter array would not let the planner
 * use it).
 */
export const RUNS_IN_FLIGHT_SQL = RUNS_IN_FLIGHT.map((status) => `'${status}'`).join(', ');

/**
 * Creating runs of batch jobs, shared by the gateway (a job's first run, reruns) and the scheduler
 * (scheduled firings), so both number runs and queue their tasks the same way.
 */
export class RunsRepository {
  /** A new queued run numbered after the job's last one, made the job's latest; answers its `run_sequence`. */
  async insertRun(sql: Sql, run: NewRun): Promise<number> {
    const [row] = await sql.query<{ run_sequence: number }>(
      `INSERT INTO job_runs (id, job_id, tenant_id, run_sequence, kind, status, total, trace_parent, source_run_id)
       SELECT $1, $2, $3, coalesce(max(run_sequence), 0) + 1, $4, 'queued', $5, $6, $7
         FROM job_runs WHERE job_id = $2
       RETURNING run_sequence`,
      [run.id, run.jobId, run.tenantId, run.kind, run.total, run.traceParent ?? null, run.sourceRunId ?? null],
    );
    await sql.query(`UPDATE jobs SET latest_run_id = $2, updated_at = now() WHERE id = $1`, [run.jobId, run.id]);
    return row.run_sequence;
  }

  /** Queues run tasks `fromSeq … fromSeq + count - 1` (each points at the job's task of the same seq); one statement. */
  async insertRunTasks(sql: Sql, runId: string, fromSeq: number, count: number): Promise<void> {
    if (count <= 0) return;
    await sql.query(
      `INSERT INTO run_tasks (run_id, seq, state)
       SELECT $1, s, 'queued' FROM generate_series($2::int, $3::int) AS s`,
      [runId, fromSeq, fromSeq + count - 1],
    );
  }

  /** The job's run that has not ended, if any. */
  async runInFlight(sql: Sql, tenantId: string, jobId: string): Promise<{ runId: string } | undefined> {
    const [row] = await sql.query<{ id: string }>(
      `SELECT id FROM job_runs WHERE tenant_id = $1 AND job_id = $2 AND status = ANY($3::text[]) ORDER BY run_sequence DESC LIMIT 1`,
      [tenantId, jobId, RUNS_IN_FLIGHT],
    );
    return row && { runId: row.id };
  }

  /** Locks a job for a new run: its type, task count and whether its tasks are all written. */
  async lockJob(
    sql: Sql,
    tenantId: string,
    jobId: string,
  ): Promise<{ type: JobType; taskCount: number; ingestState: JobIngestState } | undefined> {
    const [row] = await sql.query<{ type: JobType; task_count: number; ingest_state: JobIngestState }>(
      `SELECT type, task_count, ingest_state FROM jobs WHERE tenant_id = $1 AND id = $2 FOR UPDATE`,
      [tenantId, jobId],
    );
    return row && { type: row.type, taskCount: row.task_count, ingestState: row.ingest_state };
  }
}
