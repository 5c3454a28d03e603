import type { Sql } from '../database';
import type { TenantsRow } from '../tables';
import { RUNS_IN_FLIGHT_SQL } from './runs.repository';

/** A tenant's active-job limit and what counts against it now. */
export interface ActiveJobs {
  maxActiveJobs: number;
  /** Running crawls plus batch runs queued, running or paused (architecture §3: one limit for both). */
  active: number;
}

/**
 * The active-job limit shared by crawls and batch jobs, checked atomically: the tenant row is
 * locked for the rest of the transaction, so two starts racing for the last slot are serialised
 * and the loser sees the winner's row.
 */
export class ActiveJobsRepository {
  /** Locks the tenant row and counts its active jobs; undefined when the tenant does not exist. */
  async lockTenantAndCount(sql: Sql, tenantId: string): Promise<ActiveJobs | undefined> {
    const [tenant] = await sql.query<Pick<TenantsRow, 'max_active_jobs'>>(`SELECT max_active_jobs FROM tenants WHERE id = $1 FOR UPDATE`, [
      tenantId,
    ]);
    if (!tenant) return undefined;
    // A second statement, so its snapshot is taken after the lock is ours: counted in the locking
    // statement, a job the previous lock holder just committed would be missed (READ COMMITTED).
    const [count] = await sql.query<{ active: number }>(
      `SELECT (SELECT count(*) FROM crawls WHERE tenant_id = $1 AND status = 'running')::int +
              (SELECT count(*) FROM job_runs WHERE tenant_id = $1 AND status IN (${RUNS_IN_FLIGHT_SQL}))::int AS active`,
      [tenantId],
    );
    return { maxActiveJobs: tenant.max_active_jobs, active: count.active };
  }
}
