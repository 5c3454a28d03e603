import { Injectable } from '@nestjs/common';
import { Database, Sql } from '@trawl/persistence';
import type { Account } from './account';
import { ACCOUNT_COLUMNS, AccountRow, toAccount } from './accounts.repository';

/** A tenant's settings as the operator sets them; `undefined` leaves a setting as it is. */
export interface TenantSettings {
  name?: string;
  creditsLimit?: number;
  concurrency?: number;
  maxActiveJobs?: number;
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
}

/** `tenants` column of each settable field. */
const COLUMNS: Record<Exclude<keyof TenantSettings, 'captchaSolver'>, string> = {
  name: 'name',
  creditsLimit: 'credits_limit',
  concurrency: 'concurrency',
  maxActiveJobs: 'max_active_jobs',
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
  constructor(private readonly db: Database) {}

  /** Inserts a tenant and its first API key together. */
  async createWithKey(tenant: NewTenant): Promise<TenantRecord> {
    return this.db.transaction(async (sql) => {
      const [row] = await sql.query<{ id: string }>(
        `INSERT INTO tenants (name, credits_limit, concurrency, max_active_jobs, period_days, period_ends_at,
                              plan_features, plan_products, subscription_status, email_verified,
                              rate_limit_per_minute, captcha_solver_endpoint, captcha_solver_key_sealed, id)
         VALUES ($1, $2, $3, $4, $5, coalesce($6, now() + make_interval(days => $5)), $7, $8, $9, $10, $11, $12, $13, $14)
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
        ],
      );
      if (!row) throw new Error('INSERT … RETURNING gave no tenant row');
      await sql.query(`INSERT INTO api_keys (tenant_id, key_hash, key_hint, expires_at) VALUES ($1, $2, $3, $4)`, [
        row.id,
        tenant.key.hash,
        tenant.key.hint,
        tenant.key.expiresAt,
      ]);
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
    const rows = await sql.query<AccountRow & { api_key_expires_at: Date | null }>(
      `SELECT ${ACCOUNT_COLUMNS},
              (SELECT max(k.expires_at) FROM api_keys k WHERE k.tenant_id = t.id AND k.revoked_at IS NULL) AS api_key_expires_at
         FROM tenants t WHERE t.id = $1`,
      [tenantId],
    );
    const row = rows[0];
    return row && { ...toAccount(row), apiKeyExpiresAt: row.api_key_expires_at };
  }
}
