import { Injectable } from '@nestjs/common';
import { Database, Sql } from '@trawl/persistence';
import type { CreatedCursor } from './admin-cursors';
import { AdminAuditEntry, AdminAuditRepository } from './admin-audit.repository';

/** An API key as the admin API shows it: never the key, only its hint. */
export interface TenantKeyRecord {
  keyId: string;
  tenantId: string;
  name: string;
  /** `…` and the last 4 characters of the key. */
  hint: string;
  createdAt: Date;
  /** `created_at` in microseconds since the epoch (exact), for list cursors. */
  createdAtMicros: string;
  /** Start of the latest minute the key was used in (at most a minute behind), or `null`. */
  lastUsedAt: Date | null;
  expiresAt: Date | null;
  revokedAt: Date | null;
  rotatedAt: Date | null;
}

/** A key's secret as stored: its SHA-256 and hint. */
export interface StoredKeySecret {
  hash: Buffer;
  hint: string;
}

/** Why a change of a key did not happen. */
export type KeyChangeRefusal = 'tenant_not_found' | 'key_not_found' | 'key_revoked' | 'name_taken';

const KEY_COLUMNS = `k.id, k.tenant_id, k.name, k.key_hint, k.created_at,
  (extract(epoch FROM k.created_at) * 1000000)::bigint::text AS created_at_micros,
  k.last_used_at, k.expires_at, k.revoked_at, k.rotated_at`;

interface KeyRow {
  id: string;
  tenant_id: string;
  name: string;
  key_hint: string;
  created_at: Date;
  created_at_micros: string;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  rotated_at: Date | null;
}

function toKey(row: KeyRow): TenantKeyRecord {
  return {
    keyId: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    hint: row.key_hint,
    createdAt: row.created_at,
    createdAtMicros: row.created_at_micros,
    lastUsedAt: row.last_used_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    rotatedAt: row.rotated_at,
  };
}

/** SQL of a tenant's API keys as operators manage them; every change is audited in its transaction. */
@Injectable()
export class TenantKeysRepository {
  constructor(
    private readonly db: Database,
    private readonly audit: AdminAuditRepository,
  ) {}

  /** The tenant's keys (revoked ones too) after `cursor`, newest first. */
  async listPage(tenantId: string, cursor: CreatedCursor | undefined, limit: number): Promise<TenantKeyRecord[]> {
    const rows = await this.db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys k
        WHERE k.tenant_id = $1
          AND ($2::bigint IS NULL
               OR (k.created_at, k.id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid))
        ORDER BY k.created_at DESC, k.id DESC
        LIMIT $4`,
      [tenantId, cursor?.createdAtMicros ?? null, cursor?.id ?? null, limit],
    );
    return rows.map(toKey);
  }

  /** A new key of the tenant, audited as `audit` (its key id filled in). */
  async insert(
    tenantId: string,
    key: StoredKeySecret & { name: string; expiresAt: Date | null },
    audit: Omit<AdminAuditEntry, 'tenantId' | 'apiKeyId'>,
  ): Promise<TenantKeyRecord | KeyChangeRefusal> {
    return this.db.transaction(async (sql) => {
      // The share lock keeps the tenant from going away between the check and the insert.
      const tenant = await sql.query(`SELECT 1 FROM tenants WHERE id = $1 FOR SHARE`, [tenantId]);
      if (tenant.length === 0) return 'tenant_not_found';
      const rows = await sql.query<KeyRow>(
        `WITH k AS (
           INSERT INTO api_keys (tenant_id, name, key_hash, key_hint, expires_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (tenant_id, name) WHERE revoked_at IS NULL DO NOTHING
           RETURNING *)
         SELECT ${KEY_COLUMNS} FROM k`,
        [tenantId, key.name, key.hash, key.hint, key.expiresAt],
      );
      const row = rows[0];
      if (!row) return 'name_taken';
      await this.audit.record(sql, { ...audit, tenantId, apiKeyId: row.id });
      return toKey(row);
    });
  }

  /**
   * Replaces the secret of a live key: the old one matches no key from this commit on (the API key
   * cache may accept it `API_KEY_CACHE_TTL_MS` longer). The key keeps its id and name.
   */
  async rotate(
    tenantId: string,
    keyId: string,
    secret: StoredKeySecret,
    audit: AdminAuditEntry,
  ): Promise<TenantKeyRecord | KeyChangeRefusal> {
    return this.db.transaction(async (sql) => {
      const current = await this.lockedKey(sql, tenantId, keyId);
      if (typeof current === 'string') return current;
      if (current.revokedAt) return 'key_revoked';
      const [row] = await sql.query<KeyRow>(
        `WITH k AS (
           UPDATE api_keys SET key_hash = $3, key_hint = $4, rotated_at = now(), last_used_at = NULL
            WHERE tenant_id = $1 AND id = $2 RETURNING *)
         SELECT ${KEY_COLUMNS} FROM k`,
        [tenantId, keyId, secret.hash, secret.hint],
      );
      if (!row) throw new Error('UPDATE … RETURNING gave no locked key');
      await this.audit.record(sql, audit);
      return toKey(row);
    });
  }

  /** Revokes the key (audited) unless it already is; `changed` says which. */
  async revoke(
    tenantId: string,
    keyId: string,
    audit: AdminAuditEntry,
  ): Promise<{ key: TenantKeyRecord; changed: boolean } | KeyChangeRefusal> {
    return this.db.transaction(async (sql) => {
      const current = await this.lockedKey(sql, tenantId, keyId);
      if (typeof current === 'string') return current;
      if (current.revokedAt) return { key: current, changed: false };
      const [row] = await sql.query<KeyRow>(
        `WITH k AS (UPDATE api_keys SET revoked_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING *) SELECT ${KEY_COLUMNS} FROM k`,
        [tenantId, keyId],
      );
      if (!row) throw new Error('UPDATE … RETURNING gave no locked key');
      await this.audit.record(sql, audit);
      return { key: toKey(row), changed: true };
    });
  }

  private async lockedKey(sql: Sql, tenantId: string, keyId: string): Promise<TenantKeyRecord | KeyChangeRefusal> {
    const rows = await sql.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.tenant_id = $1 AND k.id = $2 FOR UPDATE`, [
      tenantId,
      keyId,
    ]);
    const row = rows[0];
    if (row) return toKey(row);
    const tenant = await sql.query(`SELECT 1 FROM tenants WHERE id = $1`, [tenantId]);
    return tenant.length === 0 ? 'tenant_not_found' : 'key_not_found';
  }
}
