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

export class JobExportError extends ApiError {
  constructor(override readonly code: JobExportErrorCode, detail: string, extensions: Record<string, unknown> = {}) {
    super(code, detail, extensions);
  }
}
