import { Injectable } from '@nestjs/common';
import { Schedule } from '@trawl/contracts';
import type { JobSchedulesRow, Sql } from '@trawl/persistence';
import type { FiringOutcome } from './missed-firings';

/** A schedule whose due time has come, as the due list names it. */
export interface DueSchedule {
  tenantId: string;
  jobId: string;
}

/** A schedule row, locked for firing. */
export interface LockedSchedule {
  tenantId: string;
  jobId: string;
  schedule: Schedule;
  anchorAt: Date;
  nextDueAt: Date;
}

export interface FiringRecord {
  id: string;
  tenantId: string;
  jobId: string;
  dueAt: Date;
  firedAt: Date;
  outcome: FiringOutcome;
  runId: string | null;
  leaderEpoch: number;
}

/** SQL of `job_schedules` and `schedule_firings` for the schedule engine. */
@Injectable()
export class SchedulesRepository {
  /**
   * Active schedules due at `now`, most overdue first. Spans tenants on purpose: firing is a system
   * sweep; every later step is scoped by the tenant it returns.
   */
  async dueSchedules(sql: Sql, now: Date, limit: number): Promise<DueSchedule[]> {
    const rows = await sql.query<Pick<JobSchedulesRow, 'tenant_id' | 'job_id'>>(
      `SELECT tenant_id, job_id FROM job_schedules
       WHERE state = 'active' AND next_due_at IS NOT NULL AND next_due_at <= $1
       ORDER BY next_due_at LIMIT $2`,
      [now, limit],
    );
    return rows.map((row) => ({ tenantId: row.tenant_id, jobId: row.job_id }));
  }

  /**
   * Locks the schedule row if it is still active and due at `now`. The lock serialises the firing
   * with the gateway's changes (replace, pause, resume), which update the same row.
   */
  async lockDue(sql: Sql, tenantId: string, jobId: string, now: Date): Promise<LockedSchedule | undefined> {
    // Never a null `next_due_at`: the WHERE clause leaves those out.
    const [row] = await sql.query<Pick<JobSchedulesRow, 'schedule' | 'anchor_at'> & { next_due_at: Date }>(
      `SELECT schedule, anchor_at, next_due_at FROM job_schedules
       WHERE tenant_id = $1 AND job_id = $2 AND state = 'active' AND next_due_at IS NOT NULL AND next_due_at <= $3
       FOR UPDATE`,
      [tenantId, jobId, now],
    );
    return row && { tenantId, jobId, schedule: row.schedule, anchorAt: new Date(row.anchor_at), nextDueAt: new Date(row.next_due_at) };
  }

  /** Records a due time's firing; false if it was already recorded (the `(job_id, due_at)` key). */
  async recordFiring(sql: Sql, firing: FiringRecord): Promise<boolean> {
    const rows = await sql.query(
      `INSERT INTO schedule_firings (id, tenant_id, job_id, due_at, fired_at, outcome, run_id, leader_epoch)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (job_id, due_at) DO NOTHING
       RETURNING id`,
      [firing.id, firing.tenantId, firing.jobId, firing.dueAt, firing.firedAt, firing.outcome, firing.runId, firing.leaderEpoch],
    );
    return rows.length > 0;
  }

  async settleFiring(sql: Sql, tenantId: string, firingId: string, outcome: FiringOutcome, runId: string | null): Promise<void> {
    await sql.query(`UPDATE schedule_firings SET outcome = $3, run_id = $4 WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      firingId,
      outcome,
      runId,
    ]);
  }

  /** Moves the schedule on to its next due time after a firing. */
  async advance(sql: Sql, tenantId: string, jobId: string, nextDueAt: Date | null, lastDueAt: Date, now: Date): Promise<void> {
    await sql.query(`UPDATE job_schedules SET next_due_at = $3, last_due_at = $4, updated_at = $5 WHERE tenant_id = $1 AND job_id = $2`, [
      tenantId,
      jobId,
      nextDueAt,
      lastDueAt,
      now,
    ]);
  }
}
