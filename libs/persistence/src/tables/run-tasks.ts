import type { CacheStatus, ChangeStatus, RunTaskState } from '@trawl/contracts';
import { columnNames } from './columns';

/**
 * A `run_tasks` row: one task of one run, with its claim and its result.
 * Migration 1764000000030-batch-jobs. The gateway creates jobs, runs
 * and run tasks and answers the Batch API from them; the scheduler dispatches run tasks, records their
 * results and ends runs. As `pg` returns it: `bigint` and `numeric` as strings.
 */
export interface RunTasksRow {
  run_id: string;
  seq: number;
  state: RunTaskState;
  attempt: number;
  lease_until: Date | null;
  /** When the current (or last) claim was dispatched; migration 1764000000150. */
  started_at: Date | null;
  status_code: number | null;
  /** No CHECK: what the worker reported (`OUTPUT_FORMATS` of @trawl/contracts). */
  output_format: string | null;
  content_type: string | null;
  body: Buffer | null;
  tier: string | null;
  credits: number;
  error_code: string | null;
  error_detail: string | null;
  finished_at: Date | null;
  /** With `max_age`: answered from a kept copy or fetched; migration 1764000000210. */
  cache: CacheStatus | null;
  /** With `change_tracking`: the verdict against the last version of the URL; migration 1764000000210. */
  change_status: ChangeStatus | null;
}

/** Every column of `run_tasks`. */
export const RUN_TASKS_COLUMNS = columnNames<RunTasksRow>({
  run_id: true,
  seq: true,
  state: true,
  attempt: true,
  lease_until: true,
  started_at: true,
  status_code: true,
  output_format: true,
  content_type: true,
  body: true,
  tier: true,
  credits: true,
  error_code: true,
  error_detail: true,
  finished_at: true,
  cache: true,
  change_status: true,
});

/** The result columns of `run_tasks` that a results page, an export and a carried-over result read. */
export const RUN_TASK_RESULT_COLUMNS = [
  'status_code',
  'output_format',
  'content_type',
  'body',
  'tier',
  'credits',
  'error_code',
  'error_detail',
  'finished_at',
  'cache',
  'change_status',
] as const satisfies readonly (keyof RunTasksRow)[];

/**
 * SQL for the number of the run `runId`'s queued tasks, counted up to `cap` (both SQL
 * expressions), from the newest end of the `run_tasks_queued` index. Tasks are claimed in `seq`
 * order, and each claimed one leaves a dead entry at the oldest end until vacuum removes it: read
 * from there, the count (and an `EXISTS`) walked them all on every dispatch round, the way the
 * crawl frontier's did (see `frontierHasPageIn`).
 */
export function queuedTasksUpTo(runId: string, cap: string): string {
  return `(SELECT count(*)::int FROM (SELECT 1 FROM run_tasks q WHERE q.run_id = ${runId} AND q.state = 'queued'
                                     ORDER BY q.seq DESC LIMIT ${cap}) x)`;
}

/** SQL for a boolean: whether the run `runId` (an SQL expression) has a queued task, read as `queuedTasksUpTo` reads. */
export function runHasQueuedTask(runId: string): string {
  return `((SELECT 1 FROM run_tasks q WHERE q.run_id = ${runId} AND q.state = 'queued' ORDER BY q.seq DESC LIMIT 1) IS NOT NULL)`;
}
