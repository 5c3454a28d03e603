import type { BatchTaskMethod } from '@trawl/contracts';
import { columnNames } from './columns';

/**
 * A `job_tasks` row: one URL of a job.
 * Migrations 1764000000030-batch-jobs, 1764000000100-put-batch-tasks. The gateway creates jobs, runs
 * and run tasks and answers the Batch API from them; the scheduler dispatches run tasks, records their
 * results and ends runs. As `pg` returns it: `bigint` and `numeric` as strings.
 */
export interface JobTasksRow {
  job_id: string;
  seq: number;
  url: string;
  method: BatchTaskMethod;
  body: string | null;
  external_id: string | null;
  metadata: Record<string, unknown> | null;
  /** The task's own parameters; `null`: the job's. */
  service_params: Record<string, unknown> | null;
}

/** Every column of `job_tasks`. */
export const JOB_TASKS_COLUMNS = columnNames<JobTasksRow>({
  job_id: true,
  seq: true,
  url: true,
  method: true,
  body: true,
  external_id: true,
  metadata: true,
  service_params: true,
});
