import { ApiError } from '../problems/api-error';

/** Refusals of bulk exports (spec-batch-api §8 "Bulk export"). */
export enum JobExportErrorCode {
  /** No export with this id for this job on the caller's account (also another tenant's, or a malformed id). */
  ExportNotFound = 'export_not_found',
  /** The export is past its 12-hour lifetime. */
  ExportExpired = 'export_expired',
  /** The run's result bodies together exceed the export limit (1 GiB). */
  ExportTooLarge = 'export_too_large',
  /** The run is still queued, running or paused: its results are not final. */
  RunNotFinished = 'run_not_finished',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    jobExports: JobExportErrorCode;
  }
}

export class JobExportError extends ApiError<JobExportErrorCode> {}
