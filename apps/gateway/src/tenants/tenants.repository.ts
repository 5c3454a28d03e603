import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';

export interface NewTenant {
  name: string;
  creditsLimit: number;
  concurrency: number;
  maxActiveJobs: number;
  periodDays: number;
  key: { hash: Buffer; hint: string };
}

export interface TenantRecord {
  tenantId: string;
  name: string;
  creditsLimit: number;
  concurrency: number;
  maxActiveJobs: number;
  periodEndsAt: Date;
}

@Injectable()
export class TenantsRepository {
  constructor(private readonly db: Database) {}

  /** Inserts a tenant and its first API key together. */
  async createWithKey(tenant: NewTenant): Promise<TenantRecord> {
    return this.db.transaction(async (sql) => {
      const [row] = await sql.query<{
        id: string;
        name: string;
        credits_limit: string;
        concurrency: number;
        max_active_jobs: number;
        period_ends_at: Date;
      }>(
        `INSERT INTO tenants (name, credits_limit, concurrency, max_active_jobs, period_ends_at)
         VALUES ($1, $2, $3, $4, now() + make_interval(days => $5))
         RETURNING id, name, credits_limit, concurrency, max_active_jobs, period_ends_at`,
        [tenant.name, tenant.creditsLimit, tenant.concurrency, tenant.maxActiveJobs, tenant.periodDays],
      );
      if (!row) throw new Error('INSERT … RETURNING gave no tenant row');
      await sql.query(`INSERT INTO api_keys (tenant_id, key_hash, key_hint) VALUES ($1, $2, $3)`, [
        row.id,
        tenant.key.hash,
        tenant.key.hint,
      ]);
      return {
        tenantId: row.id,
        name: row.name,
        creditsLimit: Number(row.credits_limit),
        concurrency: row.concurrency,
        maxActiveJobs: row.max_active_jobs,
        periodEndsAt: row.period_ends_at,
      };
    });
  }
}
