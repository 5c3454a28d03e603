import { Injectable } from '@nestjs/common';
import { Database, Sql } from '@trawl/persistence';

/** What an operator changed through the admin API. */
export const ADMIN_ACTIONS = [
  'tenant.created',
  'tenant.updated',
  'tenant.suspended',
  'tenant.resumed',
  'api_key.created',
  'api_key.rotated',
  'api_key.revoked',
  // Refusals, with no tenant: a wrong or missing admin token, and an address refused for too many.
  'admin.auth_failed',
  'admin.auth_throttled',
] as const;
export type AdminAction = (typeof ADMIN_ACTIONS)[number];

/** One admin change as it is recorded. `details` never holds a secret (no key, no solver key). */
export interface AdminAuditEntry {
  action: AdminAction;
  tenantId: string;
  apiKeyId?: string;
  /** The fingerprint of the token that made the change (`fingerprintOf`, auth/admin-authenticator.ts). */
  adminFingerprint: string;
  details?: Record<string, unknown>;
}

/** A refused admin request: who knocked (the address, the token's fingerprint), how, on what. */
export interface AdminAuthRefusal {
  action: Extract<AdminAction, 'admin.auth_failed' | 'admin.auth_throttled'>;
  /** The fingerprint of the token presented (`fingerprintOf`, auth/admin-authenticator.ts; '' when none was). */
  adminFingerprint: string;
  details: { client_address: string; method: string; path: string; reason: 'missing' | 'wrong_token' | 'throttled' };
}

export interface AdminAuditRecord extends Required<Omit<AdminAuditEntry, 'apiKeyId' | 'tenantId'>> {
  id: string;
  tenantId: string | null;
  apiKeyId: string | null;
  createdAt: Date;
}

/** SQL of `admin_audit`: written in the transaction of the change it records, read newest first. */
@Injectable()
export class AdminAuditRepository {
  constructor(private readonly db: Database) {}

  /** Records `entry` with `sql`: pass the change's transaction, so a change is never without its row. */
  async record(sql: Sql, entry: AdminAuditEntry): Promise<void> {
    await sql.query(`INSERT INTO admin_audit (action, tenant_id, api_key_id, admin_fingerprint, details) VALUES ($1, $2, $3, $4, $5)`, [
      entry.action,
      entry.tenantId,
      entry.apiKeyId ?? null,
      entry.adminFingerprint,
      JSON.stringify(entry.details ?? {}),
    ]);
  }

  /** Records a refused admin request (on its own: there is no change to go with it). */
  async recordRefusal(refusal: AdminAuthRefusal): Promise<void> {
    await this.db.query(`INSERT INTO admin_audit (action, admin_fingerprint, details) VALUES ($1, $2, $3)`, [
      refusal.action,
      refusal.adminFingerprint,
      JSON.stringify(refusal.details),
    ]);
  }

  /** Entries older than `beforeId` (all when `undefined`), newest first; of one tenant when given. */
  async listPage(beforeId: string | undefined, limit: number, tenantId: string | undefined): Promise<AdminAuditRecord[]> {
    const rows = await this.db.query<{
      id: string;
      created_at: Date;
      action: AdminAction;
      tenant_id: string | null;
      api_key_id: string | null;
      admin_fingerprint: string;
      details: Record<string, unknown>;
    }>(
      `SELECT id::text, created_at, action, tenant_id, api_key_id, admin_fingerprint, details FROM admin_audit
        WHERE ($1::bigint IS NULL OR id < $1::bigint) AND ($2::uuid IS NULL OR tenant_id = $2::uuid)
        ORDER BY admin_audit.id DESC LIMIT $3`,
      [beforeId ?? null, tenantId ?? null, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      createdAt: row.created_at,
      action: row.action,
      tenantId: row.tenant_id,
      apiKeyId: row.api_key_id,
      adminFingerprint: row.admin_fingerprint,
      details: row.details,
    }));
  }
}
