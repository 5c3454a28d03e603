import type { CacheStatus, ChangeStatus, RunTaskState } from '@trawl/contracts';

/** The states a result settles a run task in. */
export type SettledTaskState = Extract<RunTaskState, 'succeeded' | 'failed'>;

/** One dispatch of a task: the attempt a result must match. */
export interface TaskClaim {
  runId: string;
  seq: number;
  attempt: number;
}

/** A task's outcome as the intake writes it: from a worker's result, or decided by the scheduler itself. */
export interface TaskResult {
  runId: string;
  seq: number;
  attempt: number;
  state: SettledTaskState;
  statusCode: number;
  contentType: string | null;
  outputFormat: string | null;
  body: Buffer | null;
  /** Tier billed; null when the task is free (failures other than those the Fetch API bills). */
  tier: string | null;
  credits: number;
  errorCode: string | null;
  errorDetail: string | null;
  /** With `max_age`: whether a kept copy answered; null when the task did not ask. */
  cache: CacheStatus | null;
  /** With `change_tracking`: the verdict against the tenant's last version of the URL; null without one. */
  changeStatus: ChangeStatus | null;
}

/** A failure the scheduler decides without a worker (parameters, forbidden domain, lost claims). */
export function failedResult(
  claim: { runId: string; seq: number; attempt: number },
  errorCode: string,
  statusCode: number,
  errorDetail: string,
): TaskResult {
  return {
    ...claim,
    state: 'failed',
    statusCode,
    contentType: null,
    outputFormat: null,
    body: null,
    tier: null,
    credits: 0,
    errorCode,
    errorDetail,
    cache: null,
    changeStatus: null,
  };
}
