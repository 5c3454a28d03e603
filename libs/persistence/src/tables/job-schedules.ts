import type { Schedule, ScheduleState } from '@trawl/contracts';
import { columnNames, nullableColumnNames } from './columns';

/**
 * A `job_schedules` row: the schedule of a scheduled job. The gateway writes it (its timing from
 * @trawl/scheduling's `scheduleOnReplace` / `nextDueOnStateChange`) and shows it with the job; the
 * scheduler locks the due ones, fires them and advances `next_due_at`. Migrations
 * 1764000000020-schedules, 1764000000050-batch-api.
 */
export interface JobSchedulesRow {
  job_id: string;
  tenant_id: string;
  /** The API's schedule as `scheduleSchema` parsed it, without `schedule_state`: `state` holds that. */
  schedule: Schedule;
  state: ScheduleState;
  /** Origin of a rate's grid: creation or last replacement of the schedule. */
  anchor_at: Date;
  /** `null`: paused, or nothing left to fire (an `at` that has fired). */
  next_due_at: Date | null;
  last_due_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** Every column of `job_schedules`. */
export const JOB_SCHEDULES_COLUMNS = columnNames<JobSchedulesRow>({
  job_id: true,
  tenant_id: true,
  schedule: true,
  state: true,
  anchor_at: true,
  next_due_at: true,
  last_due_at: true,
  created_at: true,
  updated_at: true,
});

/** The columns of `job_schedules` that may be `NULL`. */
export const JOB_SCHEDULES_NULLABLE_COLUMNS = nullableColumnNames<JobSchedulesRow>({ next_due_at: true, last_due_at: true });
