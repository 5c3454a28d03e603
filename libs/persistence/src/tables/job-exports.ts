import type { JobExportFormat } from '@trawl/contracts/http';
import { columnNames, nullableColumnNames } from './columns';

/**
 * A `job_exports` row: a bulk export of a run's results, which run it archives and until when it
 * can be downloaded (the archive is built at download). The gateway writes and serves it; the
 * scheduler's retention sweep deletes it once expired. Migration 1764000000060-batch-files. As
 * `pg` returns it: `bigint` as a string.
 */
export interface JobExportsRow {
  id: string;
  tenant_id: string;
  job_id: string;
  run_id: string;
  format: JobExportFormat;
  /** `bigint`: the run's result bodies when the export was made, in bytes. */
  body_bytes: string;
  expires_at: Date;
  created_at: Date;
}

/** Every column of `job_exports`. */
export const JOB_EXPORTS_COLUMNS = columnNames<JobExportsRow>({
  id: true,
  tenant_id: true,
  job_id: true,
  run_id: true,
  format: true,
  body_bytes: true,
  expires_at: true,
  created_at: true,
});

/** The columns of `job_exports` that may be `NULL`. */
export const JOB_EXPORTS_NULLABLE_COLUMNS = nullableColumnNames<JobExportsRow>({});
