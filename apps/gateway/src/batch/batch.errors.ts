import { ApiError } from '../problems/api-error';
import type { InvalidTask } from '@trawl/contracts/http';

/** Refusals of the Batch API (spec-batch-api §7) beyond the generic request and webhook problems. */
export enum BatchErrorCode {
  /** No job with this id on the caller's account (also another tenant's id, or a malformed one). */
  JobNotFound = 'job_not_found',
  /** One or more submitted tasks are invalid; the problem lists them in `invalid_tasks`. */
  InvalidTasks = 'invalid_tasks',
  /** The account already has its maximum of active jobs (crawls included). */
  QuotaExceeded = 'quota_exceeded',
  /**
   * The idempotency key was used before (one use per key; the first answer is not replayed); the
   * problem names the caller's job that holds the key in `job_id`.
   */
  IdempotencyKeyConflict = 'idempotency_key_conflict',
  /** Tasks added to a closed job. */
  JobClosed = 'job_closed',
  /** Tasks added while a large submission's rows are still being written. */
  JobIngesting = 'job_ingesting',
  /** `file_input_id` names no uploaded CSV input of the caller's. */
  FileInputNotFound = 'file_input_not_found',
  /** Stop, cancel, pause or resume with no run queued, running or paused. */
  NoRunInFlight = 'no_run_in_flight',
  /**
   * A rerun or retry-failed while a run of the job is still queued, running or paused; also a
   * retry-failed while tasks of the ended latest run are still out on workers (`tasks_in_flight`);
   * deleting a job whose run is in flight, or that run.
   */
  RunInFlight = 'run_in_flight',
  /** Retry-failed on a run with nothing to re-queue (no failed task, and not-started ones not asked for). */
  NothingToRetry = 'nothing_to_retry',
  /** No run with this id in the job. */
  RunNotFound = 'run_not_found',
  /** No task with this `task_id` in the run (also a `result_url` whose signature does not hold). */
  TaskNotFound = 'task_not_found',
  /** A task's content asked for while it has none: not answered yet, or failed (`status` says which). */
  TaskHasNoContent = 'task_has_no_content',
  /** A `result_url` past its expiry: read the results again for a fresh one. */
  ResultUrlExpired = 'result_url_expired',
  /** A schedule operation on a `regular` job. */
  JobNotScheduled = 'job_not_scheduled',
  /** A `cursor` that is not one this endpoint handed out (or belongs to another job or run). */
  InvalidJobsCursor = 'invalid_jobs_cursor',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    batch: BatchErrorCode;
  }
}

export class BatchError extends ApiError<BatchErrorCode> {
  static invalidTasks(invalid: InvalidTask[], invalidCount: number): BatchError {
    const listed = invalid.length < invalidCount ? ` (the first ${invalid.length} are listed)` : '';
    return new BatchError(
      BatchErrorCode.InvalidTasks,
      `${invalidCount} task${invalidCount === 1 ? ' is' : 's are'} invalid${listed}; nothing was created. Fix them and submit again.`,
      { invalid_tasks: invalid, invalid_task_count: invalidCount },
    );
  }

  /**
   * A reused key names the job that holds it (`jobId`, the caller's own: keys are per tenant), so a
   * client whose first create was answered but lost can read that job; the answer is still not replayed.
   */
  static idempotencyKeyConflict(jobId: string): BatchError {
    return new BatchError(
      BatchErrorCode.IdempotencyKeyConflict,
      `This idempotency key was used before, by job ${jobId}; a key is good for one job. Read it (GET /v1/jobs/${jobId}) to see what the first request created.`,
      { job_id: jobId },
    );
  }
}
