import { Injectable } from '@nestjs/common';
import type { Schedule, ScheduleState } from '@trawl/contracts';
import type { JobSchedulesRow, Sql } from '@trawl/persistence';
import type { JobScheduleRecord } from './jobs.repository';

export interface ScheduleWrite {
  tenantId: string;
  jobId: string;
  schedule: Schedule;
  state: ScheduleState;
  anchorAt: Date;
  nextDueAt: Date | null;
}

/**
 * SQL of `job_schedules` as the gateway writes it (the scheduler advances `next_due_at` as it
 * fires). A change locks only the schedule row, the first lock a firing takes too, so the two never
 * wait on each other in opposite orders.
 */
@Injectable()
export class JobSchedulesRepository {
  async insert(sql: Sql, row: ScheduleWrite): Promise<void> {
    await sql.query(
      `INSERT INTO job_schedules (job_id, tenant_id, schedule, state, anchor_at, next_due_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [row.jobId, row.tenantId, scheduleJson(row.schedule), row.state, row.anchorAt, row.nextDueAt],
    );
  }

  async lock(sql: Sql, tenantId: string, jobId: string): Promise<JobScheduleRecord | undefined> {
    const [row] = await sql.query<Pick<JobSchedulesRow, 'schedule' | 'state' | 'anchor_at' | 'next_due_at'>>(
      `SELECT schedule, state, anchor_at, next_due_at FROM job_schedules WHERE tenant_id = $1 AND job_id = $2 FOR UPDATE`,
      [tenantId, jobId],
    );
    return row && { schedule: row.schedule, state: row.state, anchorAt: row.anchor_at, nextDueAt: row.next_due_at };
  }

  async update(sql: Sql, row: ScheduleWrite): Promise<void> {
    await sql.query(
      `UPDATE job_schedules SET schedule = $3, state = $4, anchor_at = $5, next_due_at = $6, updated_at = now()
        WHERE tenant_id = $1 AND job_id = $2`,
      [row.tenantId, row.jobId, scheduleJson(row.schedule), row.state, row.anchorAt, row.nextDueAt],
    );
  }
}

/** The timing alone: the `state` column, not a copy inside the JSON, says whether it is paused. */
function scheduleJson(schedule: Schedule): string {
  return JSON.stringify({ ...schedule, schedule_state: undefined });
}
