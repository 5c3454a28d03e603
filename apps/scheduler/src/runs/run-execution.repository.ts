import { Injectable } from '@nestjs/common';
import { type ChangeStatus, LISTED_CHANGE_STATUSES, type RunStatus } from '@trawl/contracts';
import { type JobRunsRow, type JobsRow, RUNS_IN_FLIGHT_SQL, type Sql } from '@trawl/persistence';
import type { ChangedPage } from './run-changes';
import { tryTenantDispatchLock } from './run-dispatch.repository';
import type { SettledTaskState, TaskResult } from './task-result';

/** A run locked for a change of its counters or status, with its job's webhook. */
export interface RunState {
  id: string;
  jobId: string;
  tenantId: string;
  runSequence: number;
  status: RunStatus;
  total: number;
  successful: number;
  failed: number;
  credits: number;
  cost: number;
  /** The job takes no more tasks (closed) and all of them are written: the run can complete. */
  jobComplete: boolean;
  webhook: { url: string; signature: boolean } | null;
}

/** A task row changed by a result. */
export interface AppliedTask {
  runId: string;
  seq: number;
  state: SettledTaskState;
  credits: number;
  tier: string | null;
  /** Its run's counters once this statement's results are counted. */
  run: { successful: number; failed: number };
}

type RunRow = Pick<
  JobRunsRow,
  'id' | 'job_id' | 'tenant_id' | 'run_sequence' | 'status' | 'total' | 'successful' | 'failed' | 'credits' | 'cost'
> &
  Pick<JobsRow, 'webhook_url' | 'webhook_signature'> & { job_complete: boolean };

const RUN_STATE_COLUMNS = `r.id, r.job_id, r.tenant_id, r.run_sequence, r.status, r.total, r.successful, r.failed,
         r.credits::text AS credits, r.cost::text AS cost,
         (j.status = 'closed' AND j.ingest_state = 'ready') AS job_complete, j.webhook_url, j.webhook_signature`;
const RUN_STATE_FROM = `FROM job_runs r JOIN jobs j ON j.id = r.job_id`;
const RUN_STATE = `SELECT ${RUN_STATE_COLUMNS} ${RUN_STATE_FROM}`;
/** The runs of `$1`, locked in id order (the order every writer of several runs takes, so none deadlocks). */
const LOCKED_IN_ID_ORDER = `${RUN_STATE_FROM} WHERE r.id = ANY ($1::uuid[]) ORDER BY r.id FOR UPDATE OF r`;

/** Runs locked by an intake, and the tenants whose dispatch lock it took with them. */
export interface LockedForIntake {
  runs: Map<string, RunState>;
  /** Tenants of runs that may dispatch (queued or running) whose dispatch lock the transaction holds. */
  dispatchLocked: Set<string>;
}

/** SQL of result intake, run counters and run ends. Rules live in the services. */
@Injectable()
export class RunExecutionRepository {
  /** Locks runs in id order (the order every writer of several runs takes, so none deadlocks). */
  async lockRuns(sql: Sql, runIds: string[]): Promise<Map<string, RunState>> {
    const rows = await sql.prepared<RunRow>('run_exec_lock_runs', `SELECT ${RUN_STATE_COLUMNS} ${LOCKED_IN_ID_ORDER}`, [runIds]);
    return new Map(rows.map((row) => [row.id, runState(row)]));
  }

  /**
   * As `lockRuns`, and in the same statement tries (never waits for) the dispatch lock of the tenant
   * of each run that may dispatch: an intake that fills the slots its results free needs both, and
   * its statements are part of every batch task's cycle. The locks are tried before the rows are
   * locked, which is safe because no holder of a dispatch lock ever waits for one.
   */
  async lockRunsForIntake(sql: Sql, runIds: string[]): Promise<LockedForIntake> {
    const rows = await sql.prepared<RunRow & { dispatch_locked: boolean | null }>(
      'run_exec_lock_runs_for_intake',
      `SELECT ${RUN_STATE_COLUMNS},
              CASE WHEN r.status IN ('queued', 'running') THEN ${tryTenantDispatchLock('r.tenant_id')} END AS dispatch_locked
         ${LOCKED_IN_ID_ORDER}`,
      [runIds],
    );
    return {
      runs: new Map(rows.map((row) => [row.id, runState(row)])),
      dispatchLocked: new Set(rows.filter((row) => row.dispatch_locked === true).map((row) => row.tenant_id)),
    };
  }

  /**
   * Writes results onto their task rows, only where the row is still dispatched with the same
   * attempt: a late answer of an older attempt, or a second copy of one, changes nothing. In the
   * same statement, raises the counters of the (locked) runs by what was applied, so that
   * `completed = successful + failed` holds at every instant (credits of billed tasks only, cost =
   * credits × `creditPriceUsd`), and answers each applied task with its run's counters after it.
   */
  async applyResults(sql: Sql, results: TaskResult[], creditPriceUsd: number): Promise<AppliedTask[]> {
    if (results.length === 0) return [];
    const rows = await sql.prepared<{
      run_id: string;
      seq: number;
      state: SettledTaskState;
      credits: number;
      tier: string | null;
      run_successful: number;
      run_failed: number;
    }>(
      'run_exec_apply_results',
      `WITH applied AS (
         UPDATE run_tasks t
            SET state = r.state, status_code = r.status_code, content_type = r.content_type, output_format = r.output_format,
                body = r.body, tier = r.tier, credits = r.credits, error_code = r.error_code, error_detail = r.error_detail,
                cache = r.cache, change_status = r.change_status, finished_at = now(), lease_until = NULL
           FROM unnest($1::uuid[], $2::int[], $3::int[], $4::text[], $5::int[], $6::text[], $7::text[], $8::bytea[], $9::text[],
                       $10::int[], $11::text[], $12::text[], $13::text[], $14::text[])
                AS r (run_id, seq, attempt, state, status_code, content_type, output_format, body, tier, credits, error_code, error_detail,
                      cache, change_status)
          WHERE t.run_id = r.run_id AND t.seq = r.seq AND t.state = 'dispatched' AND t.attempt = r.attempt
          RETURNING t.run_id, t.seq, t.attempt, t.started_at, t.finished_at, t.state, t.credits, t.tier, t.error_code, t.error_detail
       ), logged AS (
         -- The task's history: one row per attempt, written with the answer that ends it.
         INSERT INTO run_task_attempts (run_id, seq, attempt, started_at, ended_at, outcome, error_code, error_detail, credits)
         SELECT run_id, seq, attempt, started_at, finished_at, state, error_code, error_detail, credits FROM applied
         ON CONFLICT DO NOTHING
       ), counted AS (
         UPDATE job_runs r
            SET successful = r.successful + d.successful, failed = r.failed + d.failed,
                credits = r.credits + d.credits, cost = r.cost + d.credits * $15::numeric
           FROM (SELECT run_id, count(*) FILTER (WHERE state = 'succeeded')::int AS successful,
                        count(*) FILTER (WHERE state <> 'succeeded')::int AS failed, coalesce(sum(credits) FILTER (WHERE tier IS NOT NULL), 0)::bigint AS credits
                   FROM applied GROUP BY run_id) d
          WHERE r.id = d.run_id
          RETURNING r.id, r.successful, r.failed
       )
       SELECT a.run_id, a.seq, a.state, a.credits, a.tier, c.successful AS run_successful, c.failed AS run_failed
         FROM applied a JOIN counted c ON c.id = a.run_id`,
      [
        results.map((r) => r.runId),
        results.map((r) => r.seq),
        results.map((r) => r.attempt),
        results.map((r) => r.state),
        results.map((r) => r.statusCode),
        results.map((r) => r.contentType),
        results.map((r) => r.outputFormat),
        results.map((r) => r.body),
        results.map((r) => r.tier),
        results.map((r) => r.credits),
        results.map((r) => r.errorCode),
        results.map((r) => r.errorDetail),
        results.map((r) => r.cache),
        results.map((r) => r.changeStatus),
        String(creditPriceUsd),
      ],
    );
    return rows.map((r) => ({
      runId: r.run_id,
      seq: r.seq,
      state: r.state,
      credits: r.credits,
      tier: r.tier,
      run: { successful: r.run_successful, failed: r.run_failed },
    }));
  }

  /**
   * Puts claims a worker did not run back to `queued` (same attempt only; nothing counted). A run
   * that ended never dispatches them again; one still in flight would, as a new attempt.
   */
  async release(sql: Sql, claims: { runId: string; seq: number; attempt: number }[]): Promise<number> {
    if (claims.length === 0) return 0;
    const rows = await sql.query<{ seq: number }>(
      `UPDATE run_tasks t SET state = 'queued', lease_until = NULL
         FROM unnest($1::uuid[], $2::int[], $3::int[]) AS c (run_id, seq, attempt)
        WHERE t.run_id = c.run_id AND t.seq = c.seq AND t.state = 'dispatched' AND t.attempt = c.attempt
        RETURNING t.seq`,
      [claims.map((c) => c.runId), claims.map((c) => c.seq), claims.map((c) => c.attempt)],
    );
    return rows.length;
  }

  /** Runs that ended (stopped, failed, deleted) while claims of them are still out. */
  async endedRunsWithClaimsOut(sql: Sql, limit: number): Promise<string[]> {
    const rows = await sql.query<{ run_id: string }>(
      `SELECT DISTINCT rt.run_id FROM run_tasks rt JOIN job_runs r ON r.id = rt.run_id
        WHERE rt.state = 'dispatched' AND r.status NOT IN (${RUNS_IN_FLIGHT_SQL})
        LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.run_id);
  }

  /** Ends a locked run; answers its final state, or undefined when it had already ended. */
  async endRun(
    sql: Sql,
    runId: string,
    status: Extract<RunStatus, 'completed' | 'failed'>,
    failure?: { reason: string; detail: string },
  ): Promise<RunState | undefined> {
    const [updated] = await sql.query<{ id: string }>(
      `UPDATE job_runs SET status = $2, finished_at = now(), failure_reason = $3, failure_detail = $4
        WHERE id = $1 AND status IN (${RUNS_IN_FLIGHT_SQL}) RETURNING id`,
      [runId, status, failure?.reason ?? null, failure?.detail ?? null],
    );
    if (!updated) return undefined;
    const [row] = await sql.query<RunRow>(`${RUN_STATE} WHERE r.id = $1`, [runId]);
    return row && runState(row);
  }

  /**
   * How many of the run's own answers (carried-over results left out) had each `change_tracking`
   * verdict, and the first `listLimit` pages that changed or went, in task order. Both read the
   * partial index of tracked rows, so a run that tracked nothing costs one empty index probe.
   */
  async changes(
    sql: Sql,
    runId: string,
    jobId: string,
    listLimit: number,
  ): Promise<{ counts: Map<ChangeStatus, number>; pages: ChangedPage[] }> {
    const counts = await sql.query<{ change_status: ChangeStatus; n: number }>(
      `SELECT change_status, count(*)::int AS n FROM run_tasks
        WHERE run_id = $1 AND change_status IS NOT NULL AND state IN ('succeeded', 'failed')
        GROUP BY change_status`,
      [runId],
    );
    if (counts.length === 0) return { counts: new Map(), pages: [] };
    const pages = await sql.query<{ seq: number; url: string; external_id: string | null; change_status: ChangedPage['changeStatus'] }>(
      `SELECT rt.seq, t.url, t.external_id, rt.change_status
         FROM run_tasks rt JOIN job_tasks t ON t.job_id = $2 AND t.seq = rt.seq
        WHERE rt.run_id = $1 AND rt.change_status IS NOT NULL AND rt.change_status = ANY ($3::text[]) AND rt.state IN ('succeeded', 'failed')
        ORDER BY rt.seq LIMIT $4`,
      [runId, jobId, LISTED_CHANGE_STATUSES, listLimit],
    );
    return {
      counts: new Map(counts.map((row) => [row.change_status, row.n])),
      pages: pages.map((row) => ({ seq: row.seq, url: row.url, externalId: row.external_id, changeStatus: row.change_status })),
    };
  }

  /** Makes the caller's transaction wait for the disk at commit, whatever it began with. */
  async commitDurably(sql: Sql): Promise<void> {
    await sql.query(`SET LOCAL synchronous_commit = on`);
  }

  /** Runs with dispatched tasks whose lease ran out. */
  async runsWithExpiredLeases(sql: Sql, limit: number): Promise<string[]> {
    const rows = await sql.query<{ run_id: string }>(
      `SELECT DISTINCT run_id FROM run_tasks WHERE state = 'dispatched' AND lease_until < now() LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.run_id);
  }

  /** Expired claims of a locked run, taken for the caller to requeue or fail. */
  async expiredClaims(sql: Sql, runId: string): Promise<{ seq: number; attempt: number }[]> {
    return sql.query<{ seq: number; attempt: number }>(
      `SELECT seq, attempt FROM run_tasks WHERE run_id = $1 AND state = 'dispatched' AND lease_until < now()
        ORDER BY seq FOR UPDATE SKIP LOCKED`,
      [runId],
    );
  }

  /**
   * Puts claims whose lease ran out back in the queue (their next dispatch is a new attempt); each
   * ended attempt is kept in the task's history as `lease_expired`.
   */
  async requeue(sql: Sql, runId: string, seqs: number[]): Promise<void> {
    if (seqs.length === 0) return;
    await sql.query(
      `WITH requeued AS (
         UPDATE run_tasks SET state = 'queued', lease_until = NULL WHERE run_id = $1 AND seq = ANY ($2::int[]) AND state = 'dispatched'
         RETURNING run_id, seq, attempt, started_at
       )
       INSERT INTO run_task_attempts (run_id, seq, attempt, started_at, ended_at, outcome, error_code, error_detail)
       SELECT run_id, seq, attempt, started_at, now(), 'lease_expired', 'task_lease_expired', 'No answer came from a worker before the task lease ran out; the task was queued again.'
         FROM requeued
       ON CONFLICT DO NOTHING`,
      [runId, seqs],
    );
  }

  /** Runs in flight whose every task has a result, and whose job takes no more tasks. */
  async finishableRuns(sql: Sql, limit: number): Promise<string[]> {
    const rows = await sql.query<{ id: string }>(
      `SELECT r.id FROM job_runs r JOIN jobs j ON j.id = r.job_id
        WHERE r.status IN (${RUNS_IN_FLIGHT_SQL}) AND j.status = 'closed' AND j.ingest_state = 'ready'
          AND r.successful + r.failed >= r.total
        LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }
}

function runState(row: RunRow): RunState {
  return {
    id: row.id,
    jobId: row.job_id,
    tenantId: row.tenant_id,
    runSequence: row.run_sequence,
    status: row.status,
    total: row.total,
    successful: row.successful,
    failed: row.failed,
    credits: Number(row.credits),
    cost: Number(row.cost),
    jobComplete: row.job_complete,
    webhook: row.webhook_url ? { url: row.webhook_url, signature: row.webhook_signature } : null,
  };
}
