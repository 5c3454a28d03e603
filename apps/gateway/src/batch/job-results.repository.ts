import { Injectable } from '@nestjs/common';
import type { CacheStatus, BatchTaskMethod, ChangeStatus, RunTaskState } from '@trawl/contracts';
import {
  Database,
  type JobTasksRow,
  RUN_TASK_RESULT_COLUMNS,
  type RunTaskAttemptOutcome,
  type RunTaskAttemptsRow,
  type RunTasksRow,
  selectColumns,
} from '@trawl/persistence';

/** One attempt of a task, as its history shows it. */
export interface TaskAttemptRecord {
  attempt: number;
  startedAt: Date | null;
  endedAt: Date;
  outcome: RunTaskAttemptOutcome;
  errorCode: string | null;
  errorDetail: string | null;
  credits: number;
}

/** One task of a run with its result, as the results endpoint serves it. */
export interface TaskResultRecord {
  seq: number;
  url: string;
  method: BatchTaskMethod;
  externalId: string | null;
  metadata: Record<string, unknown> | null;
  state: RunTaskState;
  statusCode: number | null;
  outputFormat: string | null;
  contentType: string | null;
  body: Buffer | null;
  tier: string | null;
  credits: number;
  errorCode: string | null;
  errorDetail: string | null;
  finishedAt: Date | null;
  /** With `max_age`: whether a kept copy answered. */
  cache: CacheStatus | null;
  /** With `change_tracking`: the page against the tenant's last version of its URL. */
  changeStatus: ChangeStatus | null;
}

type ResultRow = Pick<JobTasksRow, 'seq' | 'url' | 'method' | 'external_id' | 'metadata'> &
  Pick<RunTasksRow, 'state' | (typeof RUN_TASK_RESULT_COLUMNS)[number]> & { scanned: number };

const RESULT_COLUMNS = selectColumns(RUN_TASK_RESULT_COLUMNS, { alias: 'rt' });

/** SQL of a run's task results (run_tasks joined with the job's tasks). */
@Injectable()
export class JobResultsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Up to `limit` results after `afterSeq`, in task order, cut short once the bodies read add up
   * to `bodyBudgetBytes` (at least one result is always returned). `octet_length` of a stored body
   * is read from its TOAST header, so rows past the budget are never decompressed. `scanned` is how
   * many rows matched before the budget cut (`results.length` when it did not).
   *
   * With `pendingStates`, the page also stops before the first row after `afterSeq` in one of them
   * (`pendingFrom`, `null` when there is none). It is read first: a row only ever leaves those
   * states, so every row before it is final by the time the page is read.
   */
  async page(
    tenantId: string,
    jobId: string,
    runId: string,
    options: {
      afterSeq: number;
      limit: number;
      successfulOnly: boolean;
      /** Only tasks with one of these `change_status` verdicts (all when absent). */
      changeStatuses?: readonly ChangeStatus[];
      bodyBudgetBytes: number;
      pendingStates?: readonly RunTaskState[];
    },
  ): Promise<{ results: TaskResultRecord[]; scanned: number; pendingFrom: number | null }> {
    let pendingFrom: number | null = null;
    if (options.pendingStates && options.pendingStates.length > 0) {
      const [pending] = await this.db.query<{ seq: number }>(
        `SELECT rt.seq FROM run_tasks rt JOIN job_runs r ON r.id = rt.run_id
          WHERE r.tenant_id = $1 AND r.job_id = $2 AND rt.run_id = $3 AND rt.seq > $4 AND rt.state = ANY ($5::text[])
          ORDER BY rt.seq LIMIT 1`,
        [tenantId, jobId, runId, options.afterSeq, options.pendingStates],
      );
      pendingFrom = pending?.seq ?? null;
    }
    const rows = await this.db.query<ResultRow>(
      `WITH page AS (
         SELECT rt.seq, rt.state, coalesce(octet_length(rt.body), 0) AS size,
                sum(coalesce(octet_length(rt.body), 0)) OVER (ORDER BY rt.seq) AS running
           FROM run_tasks rt JOIN job_runs r ON r.id = rt.run_id
          WHERE r.tenant_id = $1 AND r.job_id = $2 AND rt.run_id = $3 AND rt.seq > $4
            AND (NOT $6 OR rt.state IN ('succeeded', 'carried')) AND ($8::int IS NULL OR rt.seq < $8)
            AND ($9::text[] IS NULL OR rt.change_status = ANY ($9::text[]))
          ORDER BY rt.seq LIMIT $5
       )
       SELECT p.seq, t.url, t.method, t.external_id, t.metadata, p.state, ${RESULT_COLUMNS},
              (SELECT count(*) FROM page)::int AS scanned
         FROM page p
         JOIN run_tasks rt ON rt.run_id = $3 AND rt.seq = p.seq
         JOIN job_tasks t ON t.job_id = $2 AND t.seq = p.seq
        WHERE p.running - p.size < $7 OR p.seq = (SELECT min(seq) FROM page)
        ORDER BY p.seq`,
      [
        tenantId,
        jobId,
        runId,
        options.afterSeq,
        options.limit,
        options.successfulOnly,
        options.bodyBudgetBytes,
        pendingFrom,
        options.changeStatuses ?? null,
      ],
    );
    const results = rows.map(toResult);
    return { results, scanned: rows[0]?.scanned ?? 0, pendingFrom };
  }

  /** Whether the run has a task at `seq` (the tenant's run). */
  async hasTask(tenantId: string, runId: string, seq: number): Promise<boolean> {
    const rows = await this.db.query(
      `SELECT 1 FROM run_tasks rt JOIN job_runs r ON r.id = rt.run_id WHERE r.tenant_id = $1 AND rt.run_id = $2 AND rt.seq = $3`,
      [tenantId, runId, seq],
    );
    return rows.length > 0;
  }

  /** The task's attempts in the run, first first. */
  async attempts(runId: string, seq: number): Promise<TaskAttemptRecord[]> {
    const rows = await this.db.query<RunTaskAttemptsRow>(
      `SELECT attempt, started_at, ended_at, outcome, error_code, error_detail, credits FROM run_task_attempts WHERE run_id = $1 AND seq = $2 ORDER BY attempt`,
      [runId, seq],
    );
    return rows.map((row) => ({
      attempt: row.attempt,
      startedAt: row.started_at,
      endedAt: row.ended_at,
      outcome: row.outcome,
      errorCode: row.error_code,
      errorDetail: row.error_detail,
      credits: row.credits,
    }));
  }

  /** One task of a run with its result, body included; the run is the tenant's (and the job's, when given). */
  async one(tenantId: string, runId: string, seq: number, jobId?: string): Promise<(TaskResultRecord & { jobId: string }) | undefined> {
    const [row] = await this.db.query<ResultRow & { job_id: string }>(
      `SELECT rt.seq, t.url, t.method, t.external_id, t.metadata, rt.state, ${RESULT_COLUMNS}, 1 AS scanned, r.job_id
         FROM job_runs r
         JOIN run_tasks rt ON rt.run_id = r.id AND rt.seq = $3
         JOIN job_tasks t ON t.job_id = r.job_id AND t.seq = rt.seq
        WHERE r.tenant_id = $1 AND r.id = $2 AND ($4::uuid IS NULL OR r.job_id = $4)`,
      [tenantId, runId, seq, jobId ?? null],
    );
    return row && { ...toResult(row), jobId: row.job_id };
  }
}

function toResult(row: ResultRow): TaskResultRecord {
  return {
    seq: row.seq,
    url: row.url,
    method: row.method,
    externalId: row.external_id,
    metadata: row.metadata,
    state: row.state,
    statusCode: row.status_code,
    outputFormat: row.output_format,
    contentType: row.content_type,
    body: row.body,
    tier: row.tier,
    credits: row.credits,
    errorCode: row.error_code,
    errorDetail: row.error_detail,
    finishedAt: row.finished_at,
    cache: row.cache,
    changeStatus: row.change_status,
  };
}
