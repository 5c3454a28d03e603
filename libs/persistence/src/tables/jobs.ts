import type { JobIngestState, JobStatus, JobType } from '@trawl/contracts';
import { columnNames } from './columns';

/**
 * A `jobs` row: a batch job, the template of its runs.
 * Migration 1764000000030-batch-jobs. The gateway creates jobs, runs
 * and run tasks and answers the Batch API from them; the scheduler dispatches run tasks, records their
 * results and ends runs. As `pg` returns it: `bigint` and `numeric` as strings.
 */
export interface JobsRow {
  id: string;
  tenant_id: string;
  type: JobType;
  status: JobStatus;
  service_params: Record<string, unknown>;
  webhook_url: string | null;
  webhook_signature: boolean;
  /** `ingesting` while the rows of a large submission or a CSV are still being written. */
  ingest_state: JobIngestState;
  file_input_id: string | null;
  task_count: number;
  idempotency_key: string | null;
  latest_run_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Every column of `jobs`. */
export const JOBS_COLUMNS = columnNames<JobsRow>({
  id: true,
  tenant_id: true,
  type: true,
  status: true,
  service_params: true,
  webhook_url: true,
  webhook_signature: true,
  ingest_state: true,
  file_input_id: true,
  task_count: true,
  idempotency_key: true,
  latest_run_id: true,
  created_at: true,
  updated_at: true,
});
