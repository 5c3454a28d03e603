import type { RunKind, RunStatus } from '@trawl/contracts';
import { columnNames } from './columns';

/**
 * A `job_runs` row: one execution of a job's tasks.
 * Migrations 1764000000030-batch-jobs, 1764000000040-batch-run-cost. The gateway creates jobs, runs
 * and run tasks and answers the Batch API from them; the scheduler dispatches run tasks, records their
 * results and ends runs. As `pg` returns it: `bigint` and `numeric` as strings.
 */
export interface JobRunsRow {
  id: string;
  job_id: string;
  tenant_id: string;
  run_sequence: number;
  kind: RunKind;
  status: RunStatus;
  total: number;
  successful: number;
  failed: number;
  /** `bigint`. */
  credits: string;
  /** `numeric(20, 6)`: US dollars. */
  cost: string;
  failure_reason: string | null;
  failure_detail: string | null;
  /** The run a rerun or retry-failed run was made from. */
  source_run_id: string | null;
  trace_parent: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

/** Every column of `job_runs`. */
export const JOB_RUNS_COLUMNS = columnNames<JobRunsRow>({
  id: true,
  job_id: true,
  tenant_id: true,
  run_sequence: true,
  kind: true,
  status: true,
  total: true,
  successful: true,
  failed: true,
  credits: true,
  cost: true,
  failure_reason: true,
  failure_detail: true,
  source_run_id: true,
  trace_parent: true,
  created_at: true,
  started_at: true,
  finished_at: true,
});
