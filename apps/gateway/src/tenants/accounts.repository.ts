import { Injectable } from '@nestjs/common';
import { Database, Sql, type TenantsRow } from '@trawl/persistence';
import type { PlanFeature, PlanProduct } from '@trawl/contracts';
import type { Account } from './account';

/** Columns of `tenants` an {@link Account} is made of, for queries over `tenants t`. */
export const ACCOUNT_COLUMNS = `
  t.id, t.name, t.credits_limit, t.credits_used, t.period_started_at, t.period_ends_at, t.period_days,
  t.concurrency, t.max_active_jobs, t.extract_domains_per_period, t.plan_features, t.plan_products, t.subscription_status, t.suspended_at,
  t.email_verified, t.rate_limit_per_minute, t.captcha_solver_endpoint, t.captcha_solver_key,
  t.captcha_solver_key_sealed`;

export type AccountRow = Pick<
  TenantsRow,
  | 'id'
  | 'name'
  | 'credits_limit'
  | 'credits_used'
  | 'period_started_at'
  | 'period_ends_at'
  | 'period_days'
  | 'concurrency'
  | 'max_active_jobs'
  | 'extract_domains_per_period'
  | 'plan_features'
  | 'plan_products'
  | 'subscription_status'
  | 'suspended_at'
  | 'email_verified'
  | 'rate_limit_per_minute'
  | 'captcha_solver_endpoint'
  | 'captcha_solver_key'
  | 'captcha_solver_key_sealed'
>;

export function toAccount(row: AccountRow): Account {
  return {
    tenantId: row.id,
    name: row.name,
    creditsLimit: Number(row.credits_limit),
    creditsUsed: Number(row.credits_used),
    periodStartedAt: row.period_started_at,
    periodEndsAt: row.period_ends_at,
    periodDays: row.period_days,
    concurrency: row.concurrency,
    maxActiveJobs: row.max_active_jobs,
    extractDomainsPerPeriod: row.extract_domains_per_period,
    features: row.plan_features as PlanFeature[],
    products: row.plan_products as PlanProduct[],
    subscriptionStatus: row.subscription_status,
    suspendedAt: row.suspended_at,
    emailVerified: row.email_verified,
    rateLimitPerMinute: row.rate_limit_per_minute,
    captchaSolver:
      row.captcha_solver_endpoint && (row.captcha_solver_key_sealed || row.captcha_solver_key)
        ? { endpoint: row.captcha_solver_endpoint, key: { sealed: row.captcha_solver_key_sealed, plaintext: row.captcha_solver_key } }
        : null,
  };
}

/** SQL of a tenant's account: reading it, renewing its billing period. */
@Injectable()
export class AccountsRepository {
  constructor(private readonly db: Database) {}

  async find(tenantId: string): Promise<Account | undefined> {
    const rows = await this.db.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM tenants t WHERE t.id = $1`, [tenantId]);
    return rows[0] && toAccount(rows[0]);
  }

  /**
   * Starts the current billing period of a tenant whose period has ended: as many whole periods
   * later as have passed, with no credit used. Only the request that sees the old end renews
   * (the end is compared), so two replicas renewing at once renew once.
   */
  async renewPeriodIfEnded(tenantId: string, seenPeriodEndsAt: Date, sql: Sql = this.db): Promise<void> {
    await sql.query(
      `WITH renewed AS (
         UPDATE tenants t
            SET period_started_at = t.period_ends_at + p.skipped,
                period_ends_at = t.period_ends_at + p.skipped + make_interval(days => t.period_days),
                credits_used = 0
           FROM (SELECT make_interval(days => period_days * floor(extract(epoch FROM now() - period_ends_at)
                                                 / (period_days * 86400))::int) AS skipped
                   FROM tenants WHERE id = $1) p
          WHERE t.id = $1 AND t.period_ends_at = $2 AND t.period_ends_at <= now()
          RETURNING 1)
       SELECT count(*) FROM renewed`,
      [tenantId, seenPeriodEndsAt],
    );
  }

  /** Running crawls (and, later, batch jobs) of the tenant: its active jobs. */
  async activeJobs(tenantId: string): Promise<number> {
    const rows = await this.db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM crawls WHERE tenant_id = $1 AND status = 'running'`,
      [tenantId],
    );
    return rows[0]?.count ?? 0;
  }
}
