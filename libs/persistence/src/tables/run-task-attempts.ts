import { columnNames } from './columns';

/** How an attempt of a run task came out. */
export const RUN_TASK_ATTEMPT_OUTCOMES = ['succeeded', 'failed', 'lease_expired'] as const;
export type RunTaskAttemptOutcome = (typeof RUN_TASK_ATTEMPT_OUTCOMES)[number];

/**
 * A `run_task_attempts` row: one dispatch of a run task and how it ended (migration
 * 1764000000150). The scheduler writes it when it records the answer or hands back an expired
 * claim; the gateway answers a task's history from it.
 */
export interface RunTaskAttemptsRow {
  run_id: string;
  seq: number;
  attempt: number;
  /** `null` for a claim made before the column existed. */
  started_at: Date | null;
  ended_at: Date;
  outcome: RunTaskAttemptOutcome;
  error_code: string | null;
  error_detail: string | null;
  credits: number;
}

/** Every column of `run_task_attempts`. */
export const RUN_TASK_ATTEMPTS_COLUMNS = columnNames<RunTaskAttemptsRow>({
  run_id: true,
  seq: true,
  attempt: true,
  started_at: true,
  ended_at: true,
  outcome: true,
  error_code: true,
  error_detail: true,
  credits: true,
});
