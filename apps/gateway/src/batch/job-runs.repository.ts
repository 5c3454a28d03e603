import { Injectable } from '@nestjs/common';
import type { RunStatus } from '@trawl/contracts';
import { Database, type JobRunsRow, RUNS_IN_FLIGHT, Sql } from '@trawl/persistence';
import type { RunRecord } from './jobs.repository';

type RunRow = Pick<
  JobRunsRow,
  | 'id'
  | 'job_id'
  | 'run_sequence'
  | 'kind'
  | 'status'
  | 'total'
  | 'successful'
  | 'failed'
  | 'credits'
  | 'cost'
  | 'failure_reason'
  | 'failure_detail'
  | 'created_at'
  | 'started_at'
  | 'finished_at'
>;

const RUN_COLUMNS = `r.id, r.job_id, r.run_sequence, r.kind, r.status, r.total, r.successful, r.failed, r.credits::text AS credits,
  r.cost::text AS cost, r.failure_reason, r.failure_detail, r.created_at, r.started_at, r.finished_at`;

/** What a retry-failed run would hold, counted on its source run. */
export interface RetryCounts {
  /** Succeeded (or already carried) rows: carried over with their results. */
  carried: number;
  /** Failed rows, queued again. */
  failed: number;
  /** Queued rows: never handed to a worker, or handed back unfetched. */
  notStarted: number;
  /** Dispatched rows: claims a worker may still be fetching, whose answer would still be recorded and billed. */
  claimed: number;
}

/** Transitions of a run in flight that the API makes (stop, pause, resume). */
export type RunTransition = 'stop' | 'pause' | 'resume';

/** Which statuses each transition moves a run from. */
const TRANSITION_FROM: Record<RunTransition, readonly RunStatus[]> = {
  stop: RUNS_IN_FLIGHT,
  pause: ['queued', 'running'],
  resume: ['paused'],
};

/** SQL of a job's runs as the gateway reads and steers them. Every read takes the tenant. */
@Injectable()
export class JobRunsRepository {
  constructor(private readonly db: Database) {}

  /** Runs of a job, newest first, after `beforeSequence` when given. */
  async list(tenantId: string, jobId: string, beforeSequence: number | undefined, limit: number): Promise<RunRecord[]> {
    const rows = await this.db.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM job_runs r
        WHERE r.tenant_id = $1 AND r.job_id = $2 AND ($3::int IS NULL OR r.run_sequence < $3)
        ORDER BY r.run_sequence DESC LIMIT $4`,
      [tenantId, jobId, beforeSequence ?? null, limit],
    );
    return rows.map(toRun);
  }

  async find(tenantId: string, jobId: string, runId: string, sql: Sql = this.db): Promise<RunRecord | undefined> {
    const [row] = await sql.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM job_runs r WHERE r.tenant_id = $1 AND r.job_id = $2 AND r.id = $3`, [
      tenantId,
      jobId,
      runId,
    ]);
    return row && toRun(row);
  }

  /**
   * Marks an ended run `deleted` and drops its results, their attempts and its exports; the run row stays, with its
   * counts and spend, so the job's history and bills still add up. Answers false when the run was in
   * flight or already deleted (nothing changed).
   */
  async markDeleted(sql: Sql, runId: string): Promise<boolean> {
    const marked = await sql.query(
      `UPDATE job_runs SET status = 'deleted', finished_at = coalesce(finished_at, now())
        WHERE id = $1 AND status <> ALL($2::text[]) AND status <> 'deleted' RETURNING id`,
      [runId, RUNS_IN_FLIGHT],
    );
    if (marked.length === 0) return false;
    await sql.query(`DELETE FROM run_tasks WHERE run_id = $1`, [runId]);
    await sql.query(`DELETE FROM run_task_attempts WHERE run_id = $1`, [runId]);
    await sql.query(`DELETE FROM job_exports WHERE run_id = $1`, [runId]);
    return true;
  }

  /**
   * Applies a transition to the job's run in flight in one statement, so it cannot race the
   * scheduler completing the run. Answers the run as changed, or `undefined` when the job has no run
   * in flight in a status the transition moves from.
   */
  async transition(tenantId: string, jobId: string, transition: RunTransition): Promise<RunRecord | undefined> {
    const [row] = await this.db.query<RunRow>(
      `UPDATE job_runs r SET
         status = CASE $3::text
                    WHEN 'stop' THEN 'stopped'
                    WHEN 'pause' THEN 'paused'
                    ELSE CASE WHEN r.started_at IS NULL THEN 'queued' ELSE 'running' END
                  END,
         finished_at = CASE WHEN $3::text = 'stop' THEN now() ELSE r.finished_at END
        WHERE r.id = (SELECT id FROM job_runs WHERE tenant_id = $1 AND job_id = $2 AND status = ANY($5::text[])
                       ORDER BY run_sequence DESC LIMIT 1)
          AND r.status = ANY($4::text[])
        RETURNING ${RUN_COLUMNS}`,
      [tenantId, jobId, transition, TRANSITION_FROM[transition], RUNS_IN_FLIGHT],
    );
    return row && toRun(row);
  }

  /** The job's latest run (in flight or not). */
  async latest(sql: Sql, tenantId: string, jobId: string): Promise<RunRecord | undefined> {
    const [row] = await sql.query<RunRow>(
      `SELECT ${RUN_COLUMNS} FROM job_runs r WHERE r.tenant_id = $1 AND r.job_id = $2 ORDER BY r.run_sequence DESC LIMIT 1`,
      [tenantId, jobId],
    );
    return row && toRun(row);
  }

  /**
   * Holds result intake off the run until the transaction ends: intake locks a run `FOR UPDATE`
   * before it writes results onto its rows, so the rows read next stay as read. The same share lock
   * the foreign key of a new run's `source_run_id` takes anyway, taken earlier.
   */
  async holdResults(sql: Sql, runId: string): Promise<void> {
    await sql.query(`SELECT 1 FROM job_runs WHERE id = $1 FOR KEY SHARE`, [runId]);
  }

  /**
   * Puts the expired claims of an ended run back to `queued`, as the scheduler's reconciler would
   * on its next pass: an answer that comes for one afterwards is ignored, never recorded or billed
   * (the scheduler applies a result only to a row still dispatched). Rows another transaction holds
   * (a worker's claims being handed back) are skipped, not waited for: they are being settled, and
   * this transaction may hold the tenant row such writers take next. Answers how many rows it put back.
   */
  async handBackExpiredClaims(sql: Sql, runId: string): Promise<number> {
    const rows = await sql.query(
      `UPDATE run_tasks SET state = 'queued', lease_until = NULL
        WHERE run_id = $1 AND seq IN (SELECT seq FROM run_tasks WHERE run_id = $1 AND state = 'dispatched' AND lease_until < now()
                                       FOR UPDATE SKIP LOCKED)
        RETURNING seq`,
      [runId],
    );
    return rows.length;
  }

  async retryCounts(sql: Sql, runId: string): Promise<RetryCounts> {
    const [row] = await sql.query<RetryCounts>(
      `SELECT count(*) FILTER (WHERE state IN ('succeeded', 'carried'))::int AS carried,
              count(*) FILTER (WHERE state = 'failed')::int AS failed,
              count(*) FILTER (WHERE state = 'queued')::int AS "notStarted",
              count(*) FILTER (WHERE state = 'dispatched')::int AS claimed
         FROM run_tasks WHERE run_id = $1`,
      [runId],
    );
    return row;
  }

  /**
   * Fills a retry-failed run from its source: succeeded and carried rows come over as `carried`
   * with their results (credits 0: this run does not bill them again), failed rows — and with
   * `includeNotStarted` queued ones — are queued afresh. A dispatched row is never taken: the run
   * it belongs to may still record and bill its answer. Counts the carried rows as the run's
   * `successful`.
   */
  async copyForRetry(sql: Sql, sourceRunId: string, runId: string, includeNotStarted: boolean): Promise<void> {
    await sql.query(
      `INSERT INTO run_tasks (run_id, seq, state, status_code, output_format, content_type, body, tier, credits, error_code, error_detail, finished_at,
                             cache, change_status)
       SELECT $2::uuid, seq, 'carried', status_code, output_format, content_type, body, tier, 0, error_code, error_detail, finished_at,
              cache, change_status
         FROM run_tasks WHERE run_id = $1 AND state IN ('succeeded', 'carried')
       UNION ALL
       SELECT $2::uuid, seq, 'queued', NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL
         FROM run_tasks WHERE run_id = $1 AND (state = 'failed' OR ($3::boolean AND state = 'queued'))`,
      [sourceRunId, runId, includeNotStarted],
    );
    await sql.query(
      `UPDATE job_runs SET successful = (SELECT count(*) FROM run_tasks WHERE run_id = $1 AND state = 'carried') WHERE id = $1`,
      [runId],
    );
  }

  /**
   * Credits the ledger holds for a run's tasks (refs `batch:<run_id>:<seq>`), by tier, with the
   * dollars they were billed at and the credits of rows billed without a price (older rows).
   */
  async ledgerCredits(tenantId: string, runId: string): Promise<LedgerTier[]> {
    const prefix = `batch:${runId}:`;
    const rows = await this.db.query<{ tier: string; credits: string; tasks: number; cost_usd: string; unpriced_credits: string }>(
      `SELECT tier, sum(credits)::text AS credits, count(*)::int AS tasks, coalesce(sum(cost_usd), 0)::text AS cost_usd,
              coalesce(sum(credits) FILTER (WHERE cost_usd IS NULL), 0)::text AS unpriced_credits
         FROM credit_ledger
        WHERE tenant_id = $1 AND left(ref, $3) = $2 GROUP BY tier ORDER BY tier`,
      [tenantId, prefix, prefix.length],
    );
    return rows.map((row) => ({
      tier: row.tier,
      credits: Number(row.credits),
      tasks: row.tasks,
      costUsd: Number(row.cost_usd),
      unpricedCredits: Number(row.unpriced_credits),
    }));
  }
}

/** One tier of a run's ledger rows. */
export interface LedgerTier {
  tier: string;
  credits: number;
  tasks: number;
  /** Dollars of the rows billed with a price. */
  costUsd: number;
  /** Credits of the rows billed before the ledger kept prices. */
  unpricedCredits: number;
}

export function toRun(row: RunRow): RunRecord {
  return {
    id: row.id,
    jobId: row.job_id,
    runSequence: row.run_sequence,
    kind: row.kind,
    status: row.status,
    total: row.total,
    successful: row.successful,
    failed: row.failed,
    credits: Number(row.credits),
    cost: Number(row.cost),
    failureReason: row.failure_reason,
    failureDetail: row.failure_detail,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
  };
}
