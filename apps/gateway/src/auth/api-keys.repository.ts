import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';

/** An API key as authentication needs it. */
export interface ApiKeyRecord {
  keyId: string;
  tenantId: string;
  expiresAt: Date | null;
  revokedAt: Date | null;
}

@Injectable()
export class ApiKeysRepository {
  constructor(private readonly db: Database) {}

  /** The key with this hash, revoked or not; `undefined` when there is none. */
  async findByHash(keyHash: Buffer): Promise<ApiKeyRecord | undefined> {
    const rows = await this.db.query<{ id: string; tenant_id: string; expires_at: Date | null; revoked_at: Date | null }>(
      `SELECT id, tenant_id, expires_at, revoked_at FROM api_keys WHERE key_hash = $1`,
      [keyHash],
    );
    const row = rows[0];
    return row && { keyId: row.id, tenantId: row.tenant_id, expiresAt: row.expires_at, revokedAt: row.revoked_at };
  }
}
