import { Injectable } from '@nestjs/common';
import { Database, Sql, type TenantsRow } from '@trawl/persistence';
import type { Account } from './account';
import { ACCOUNT_COLUMNS, AccountRow, toAccount } from './accounts.repository';
import type { CreatedCursor } from './admin-cursors';
import { AdminAuditEntry, AdminAuditRepository } from './admin-audit.repository';

/** A tenant's settings as the operator sets them; `undefined` leaves a setting as it is. */
export interface TenantSettings {
  name?: string;
  creditsLimit?: number;
  concurrency?: number;
  maxActiveJobs?: number;
  extractDomainsPerPeriod?: number;
  periodDays?: number;
  periodEndsAt?: Date;
  features?: string[];
  products?: string[];
  subscriptionStatus?: string;
  emailVerified?: boolean;
  rateLimitPerMinute?: number;
  /** `null` removes the solver. The key comes sealed; setting it clears a plaintext key of old. */
  captchaSolver?: { endpoint: string; keySealed: Buffer } | null;
}

export interface NewTenant extends Required<Omit<TenantSettings, 'periodEndsAt' | 'captchaSolver'>> {
  /** Chosen by the caller: the solver key is sealed to the tenant's id before the row exists. */
  id: string;
  periodEndsAt?: Date;
  captchaSolver?: { endpoint: string; keySealed: Buffer } | null;
  key: { hash: Buffer; hint: string; expiresAt: Date | null };
}

/** A tenant as the admin API shows it, with when its keys expire. */
export interface TenantRecord extends Account {
  apiKeyExpiresAt: Date | null;
  createdAt: Date;
  /** `created_at` in microseconds since the epoch (exact), for list cursors. */
  createdAtMicros: string;
}

/** What the ledger holds for a tenant since a time, by product: billed units and their credits. */
export interface ProductUsage {
  product: string;
  requests: number;
  credits: number;
}

const TENANT_COLUMNS = `${ACCOUNT_COLUMNS}, t.created_at,
  (extract(epoch FROM t.created_at) * 1000000)::bigint::text AS created_at_micros,
  (SELECT max(k.expires_at) FROM api_keys k WHERE k.tenant_id = t.id AND k.revoked_at IS NULL) AS api_key_expires_at`;

type TenantRow = AccountRow & Pick<TenantsRow, 'created_at'> & { api_key_expires_at: Date | null; created_at_micros: string };

function toTenantRecord(row: TenantRow): TenantRecord {
  return { ...toAccount(row), apiKeyExpiresAt: row.api_key_expires_at, createdAt: row.created_at, createdAtMicros: row.created_at_micros };
}

/** `tenants` column of each settable field. */
const COLUMNS: Record<Exclude<keyof TenantSettings, 'captchaSolver'>, keyof TenantsRow> = {
  name: 'name',
  creditsLimit: 'credits_limit',
  concurrency: 'concurrency',
  maxActiveJobs: 'max_active_jobs',
  extractDomainsPerPeriod: 'extract_domains_per_period',
  periodDays: 'period_days',
  periodEndsAt: 'period_ends_at',
  features: 'plan_features',
  products: 'plan_products',
  subscriptionStatus: 'subscription_status',
  emailVerified: 'email_verified',
  rateLimitPerMinute: 'rate_limit_per_minute',
};

@Injectable()
export class TenantsRepository {
  constructor(
    private readonly db: Database,
    private readonly audit: AdminAuditRepository,
  ) {}

  /** The tenant, or `undefined`. */
  find(tenantId: string): Promise<TenantRecord | undefined> {
    return this.findIn(this.db, tenantId);
  }

  /** Tenants after `cursor` (from the newest when `undefined`), newest first. */
  async listPage(cursor: CreatedCursor | undefined, limit: number): Promise<TenantRecord[]> {
    const rows = await this.db.query<TenantRow>(
      `SELECT ${TENANT_COLUMNS} FROM tenants t
        WHERE $1::bigint IS NULL
           OR (t.created_at, t.id) < ('epoch'::timestamptz + $1::bigint * interval '1 microsecond', $2::uuid)
        ORDER BY t.created_at DESC, t.id DESC
        LIMIT $3`,
      [cursor?.createdAtMicros ?? null, cursor?.id ?? null, limit],
    );
    return rows.map(toTenantRecord);
  }

  /**
   * Suspends (`suspended` true) or resumes the tenant, recording `audit` when that changed it;
   * `undefined` when there is no such tenant. A suspended tenant stays suspended since its first
   * suspension.
   */
  async setSuspended(
    tenantId: string,
    suspended: boolean,
    audit: AdminAuditEntry,
  ): Promise<{ tenant: TenantRecord; changed: boolean } | undefined> {
    return this.db.transaction(async (sql) => {
      const changed = await sql.query<{ id: string }>(
        suspended
          ? `UPDATE tenants SET suspended_at = now() WHERE id = $1 AND suspended_at IS NULL RETURNING id`
          : `UPDATE tenants SET suspended_at = NULL WHERE id = $1 AND suspended_at IS NOT NULL RETURNING id`,
        [tenantId],
      );
      if (changed.length > 0) await this.audit.record(sql, audit);
      const tenant = await this.findIn(sql, tenantId);
      return tenant && { tenant, changed: changed.length > 0 };
    });
  }

  /** Ledger rows (billed units) and credits of the tenant since `since`, by product. */
  async productUsage(tenantId: string, since: Date): Promise<ProductUsage[]> {
    const rows = await this.db.query<{ product: string; requests: string; credits: string }>(
      `SELECT product, count(*) AS requests, sum(credits) AS credits FROM credit_ledger
        WHERE tenant_id = $1 AND created_at >= $2 GROUP BY product ORDER BY product`,
      [tenantId, since],
    );
    return rows.map((row) => ({ product: row.product, requests: Number(row.requests), credits: Number(row.credits) }));
  }

  /** Inserts a tenant, its first API key (named `default`) and `audit`, together. */
  async createWithKey(tenant: NewTenant, audit: Omit<AdminAuditEntry, 'tenantId' | 'apiKeyId'>): Promise<TenantRecord> {
    return this.db.transaction(async (sql) => {
      const [row] = await sql.query<{ id: string }>(
        `INSERT INTO tenants (name, credits_limit, concurrency, max_active_jobs, period_days, period_ends_at,
                              plan_features, plan_products, subscription_status, email_verified,
                              rate_limit_per_minute, captcha_solver_endpoint, captcha_solver_key_sealed, id,
                              extract_domains_per_period)
         VALUES ($1, $2, $3, $4, $5, coalesce($6, now() + make_interval(days => $5)), $7, $8, $9, $10, $11, $12, $13, $14, $15)
         RETURNING id`,
        [
          tenant.name,
          tenant.creditsLimit,
          tenant.concurrency,
          tenant.maxActiveJobs,
          tenant.periodDays,
          tenant.periodEndsAt ?? null,
          tenant.features,
          tenant.products,
          tenant.subscriptionStatus,
          tenant.emailVerified,
          tenant.rateLimitPerMinute,
          tenant.captchaSolver?.endpoint ?? null,
          tenant.captchaSolver?.keySealed ?? null,
          tenant.id,
          tenant.extractDomainsPerPeriod,
        ],
      );
      if (!row) throw new Error('INSERT … RETURNING gave no tenant row');
      const [key] = await sql.query<{ id: string }>(
        `INSERT INTO api_keys (tenant_id, name, key_hash, key_hint, expires_at) VALUES ($1, 'default', $2, $3, $4) RETURNING id`,
        [row.id, tenant.key.hash, tenant.key.hint, tenant.key.expiresAt],
      );
      await this.audit.record(sql, { ...audit, tenantId: row.id, apiKeyId: key?.id });
      return this.findIn(sql, row.id) as Promise<TenantRecord>;
    });
  }

  /**
   * Changes the given settings (and, when `apiKeyExpiresAt` is not `undefined`, the expiry of
   * every key of the tenant); `undefined` when there is no such tenant.
   */
  async update(
    tenantId: string,
    settings: TenantSettings,
    apiKeyExpiresAt: Date | null | undefined,
    /** Recorded with the change when given (an operator's change; a tenant's own is not audited). */
    audit?: AdminAuditEntry,
  ): Promise<TenantRecord | undefined> {
    return this.db.transaction(async (sql) => {
      const sets: string[] = [];
      const params: unknown[] = [tenantId];
      for (const [field, column] of Object.entries(COLUMNS) as [keyof typeof COLUMNS, string][]) {
        const value = settings[field];
        if (value === undefined) continue;
        params.push(value);
        sets.push(`${column} = $${params.length}`);
      }
      if (settings.captchaSolver !== undefined) {
        params.push(settings.captchaSolver?.endpoint ?? null, settings.captchaSolver?.keySealed ?? null);
        sets.push(
          `captcha_solver_endpoint = $${params.length - 1}`,
          `captcha_solver_key_sealed = $${params.length}`,
          // A plaintext key from before sealing goes whenever the solver is set or removed.
          'captcha_solver_key = NULL',
        );
      }
      const found = await sql.query<{ id: string }>(
        sets.length > 0
          ? `WITH changed AS (UPDATE tenants SET ${sets.join(', ')} WHERE id = $1 RETURNING id) SELECT id FROM changed`
          : `SELECT id FROM tenants WHERE id = $1`,
        params,
      );
      if (found.length === 0) return undefined;
      if (audit) await this.audit.record(sql, audit);
      if (apiKeyExpiresAt !== undefined) {
        await sql.query(`WITH k AS (UPDATE api_keys SET expires_at = $2 WHERE tenant_id = $1 RETURNING 1) SELECT count(*) FROM k`, [
          tenantId,
          apiKeyExpiresAt,
        ]);
      }
      return this.findIn(sql, tenantId);
    });
  }

  private async findIn(sql: Sql, tenantId: string): Promise<TenantRecord | undefined> {
    const rows = await sql.query<TenantRow>(`SELECT ${TENANT_COLUMNS} FROM tenants t WHERE t.id = $1`, [tenantId]);
    const row = rows[0];
    return row && toTenantRecord(row);
  }
}
