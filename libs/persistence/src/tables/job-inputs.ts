import type { JobInputState } from '@trawl/contracts/http';
import { columnNames, nullableColumnNames } from './columns';

/**
 * A `job_inputs` row: a CSV input slot of the Batch API, its file's dialect and where its URL and
 * external id are. The gateway writes it, takes the upload and hands its rows to a job; the
 * scheduler's retention sweep deletes it once expired unused. Migrations 1764000000030-batch-jobs,
 * 1764000000060-batch-files, 1764000000160-csv-dialect. As `pg` returns it: `bigint` as a string.
 */
export interface JobInputsRow {
  id: string;
  tenant_id: string;
  /** Whether the file's first line names its fields. */
  header: boolean;
  /** The URL's field: its name with a header, else its 0-based position as text. */
  url_field: string;
  /** The external id's field, as `url_field`; `null`: none. */
  external_id_field: string | null;
  /** The field delimiter, one character. */
  delimiter: string;
  /** The quote character, one character. */
  quote: string;
  state: JobInputState;
  /** Data rows taken from the file; `null` until it is uploaded. */
  row_count: number | null;
  /** `bigint`: size of the uploaded file, in bytes; `null` until it is uploaded. */
  upload_bytes: string | null;
  expires_at: Date;
  created_at: Date;
  uploaded_at: Date | null;
  /** The job that took the rows (state `used`). */
  used_by_job_id: string | null;
}

/** Every column of `job_inputs`. */
export const JOB_INPUTS_COLUMNS = columnNames<JobInputsRow>({
  id: true,
  tenant_id: true,
  header: true,
  url_field: true,
  external_id_field: true,
  delimiter: true,
  quote: true,
  state: true,
  row_count: true,
  upload_bytes: true,
  expires_at: true,
  created_at: true,
  uploaded_at: true,
  used_by_job_id: true,
});

/** The columns of `job_inputs` that may be `NULL`. */
export const JOB_INPUTS_NULLABLE_COLUMNS = nullableColumnNames<JobInputsRow>({
  external_id_field: true,
  row_count: true,
  upload_bytes: true,
  uploaded_at: true,
  used_by_job_id: true,
});
