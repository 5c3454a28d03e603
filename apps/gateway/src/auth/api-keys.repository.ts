import { Injectable } from '@nestjs/common';
import { Database, type TenantsRow } from '@trawl/persistence';

/** An API key as authentication needs it, with the standing of its tenant that every route checks. */
export interface ApiKeyRecord {
  keyId: string;
  tenantId: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
  /** When the operator suspended the key's tenant, or `null` (then every route answers `AUTH011`). */
  tenantSuspendedAt: Date | null;
}

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: Database) {}

  /** The key with this hash, revoked or not; `undefined` when there is none. */
  async findByHash(keyHash: Buffer): Promise<ApiKeyRecord | undefined> {
    const rows = await this.db.query<
      { id: string; tenant_id: string; expires_at: Date | null; revoked_at: Date | null } & Pick<TenantsRow, 'suspended_at'>
    >(
      `SELECT k.id, k.tenant_id, k.expires_at, k.revoked_at, t.suspended_at
         FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
        WHERE k.key_hash = $1`,
      [keyHash],
    );
    const row = rows[0];
    return (
      row && {
        keyId: row.id,
        tenantId: row.tenant_id,
        expiresAt: row.expires_at,
        revokedAt: row.revoked_at,
        tenantSuspendedAt: row.suspended_at,
      }
    );
  }

  /** Notes that the key was used now (the authenticator calls it at most once a minute per key). */
  async recordUse(keyId: string): Promise<void> {
    await this.db.query(`WITH used AS (UPDATE api_keys SET last_used_at = now() WHERE id = $1 RETURNING 1) SELECT count(*) FROM used`, [
      keyId,
    ]);
  }
}
