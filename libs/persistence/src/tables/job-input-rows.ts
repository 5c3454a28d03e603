import { columnNames, nullableColumnNames } from './columns';

/**
 * A `job_input_rows` row: one checked, normalised row of an uploaded CSV, staged until a job copies
 * it into `job_tasks` (same `seq`). The gateway writes and moves it; the scheduler's retention
 * sweep deletes the rows of inputs that expired unused. Migration 1764000000060-batch-files.
 */
export interface JobInputRowsRow {
  input_id: string;
  seq: number;
  url: string;
  external_id: string | null;
}

/** Every column of `job_input_rows`. */
export const JOB_INPUT_ROWS_COLUMNS = columnNames<JobInputRowsRow>({
  input_id: true,
  seq: true,
  url: true,
  external_id: true,
});

/** The columns of `job_input_rows` that may be `NULL`. */
export const JOB_INPUT_ROWS_NULLABLE_COLUMNS = nullableColumnNames<JobInputRowsRow>({ external_id: true });
