import type { ScheduleFiringOutcome } from '@trawl/scheduling';
import { columnNames, nullableColumnNames } from './columns';

/**
 * A `schedule_firings` row: one due time of a schedule that the scheduler fired or skipped
 * (`UNIQUE (job_id, due_at)` makes the firing idempotent). The scheduler writes it; the gateway
 * lists a job's firings and shows its latest. Migration 1764000000020-schedules.
 */
export interface ScheduleFiringsRow {
  id: string;
  tenant_id: string;
  job_id: string;
  due_at: Date;
  fired_at: Date;
  outcome: ScheduleFiringOutcome;
  /** The run it started (`started` only). */
  run_id: string | null;
  /** `bigint`: the leader's lease epoch when it wrote the row. */
  leader_epoch: string;
}

/** Every column of `schedule_firings`. */
export const SCHEDULE_FIRINGS_COLUMNS = columnNames<ScheduleFiringsRow>({
  id: true,
  tenant_id: true,
  job_id: true,
  due_at: true,
  fired_at: true,
  outcome: true,
  run_id: true,
  leader_epoch: true,
});

/** The columns of `schedule_firings` that may be `NULL`. */
export const SCHEDULE_FIRINGS_NULLABLE_COLUMNS = nullableColumnNames<ScheduleFiringsRow>({ run_id: true });
