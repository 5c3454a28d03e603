import { Injectable } from '@nestjs/common';
import { Database, type ScheduleFiringsRow } from '@trawl/persistence';
import type { ScheduleFiringOutcome } from '@trawl/scheduling';

/** One due time of a job's schedule as the scheduler recorded it (a `schedule_firings` row). */
export interface ScheduleFiringRecord {
  dueAt: Date;
  /** `due_at` in microseconds since the epoch (exact), for list cursors. */
  dueAtMicros: string;
  firedAt: Date;
  outcome: ScheduleFiringOutcome;
  /** The run it started (`started` only). */
  runId: string | null;
}

/** Which firings a list keeps: all, those that started a run, or those that started none. */
export type FiringStatusFilter = 'started' | 'skipped' | undefined;

type FiringRow = Pick<ScheduleFiringsRow, 'due_at' | 'fired_at' | 'outcome' | 'run_id'> & { due_at_us: string };

/** Columns of `schedule_firings` (alias `f`) as `toFiring` reads them; the job read joins them too. */
export const FIRING_COLUMNS = `f.due_at, (extract(epoch FROM f.due_at) * 1000000)::bigint::text AS due_at_us, f.fired_at, f.outcome, f.run_id`;

/** SQL of `schedule_firings` as the gateway reads it (the scheduler writes it). Every read takes the tenant. */
@Injectable()
export class ScheduleFiringsRepository {
  constructor(private readonly db: Database) {}

  /** A job's firings, newest due time first, before `beforeDueAtMicros` when given. */
  async list(
    tenantId: string,
    jobId: string,
    filter: { status: FiringStatusFilter; beforeDueAtMicros?: string },
    limit: number,
  ): Promise<ScheduleFiringRecord[]> {
    // The cursor's microseconds are added to the epoch as an interval: exact, where a float of
    // seconds would round away the last digits.
    const rows = await this.db.query<FiringRow>(
      `SELECT ${FIRING_COLUMNS} FROM schedule_firings f
        WHERE f.tenant_id = $1 AND f.job_id = $2
          AND ($3::text IS NULL OR (f.outcome = 'started') = ($3 = 'started'))
          AND ($4::bigint IS NULL OR f.due_at < timestamptz 'epoch' + $4::bigint * interval '1 microsecond')
        ORDER BY f.due_at DESC LIMIT $5`,
      [tenantId, jobId, filter.status ?? null, filter.beforeDueAtMicros ?? null, limit],
    );
    return rows.map(toFiring);
  }
}

export function toFiring(row: FiringRow): ScheduleFiringRecord {
  return { dueAt: row.due_at, dueAtMicros: row.due_at_us, firedAt: row.fired_at, outcome: row.outcome, runId: row.run_id };
}
