import type { SigningKeyStatus } from '@trawl/contracts';
import type { Sql } from '@trawl/persistence';

/** A key that signs now or will: at most one of each per tenant (two partial unique indexes). */
export type LiveSigningKeyStatus = Exclude<SigningKeyStatus, 'retired'>;

/** A signing key row; the secret stays sealed (see `SecretBox`). */
export interface SigningKeyRow {
  kid: string;
  status: SigningKeyStatus;
  secretSealed: Buffer;
  createdAt: Date;
}

interface Row {
  kid: string;
  status: SigningKeyStatus;
  secret_sealed: Buffer;
  created_at: Date;
}

const COLUMNS = `kid, status, secret_sealed, created_at`;

function toKey(row: Row): SigningKeyRow {
  return { kid: row.kid, status: row.status, secretSealed: row.secret_sealed, createdAt: row.created_at };
}

/** SQL of `webhook_signing_keys`; every method is scoped to one tenant. */
export class SigningKeysRepository {
  /** Serialises key changes of one tenant (rotate, finalize) for the rest of the caller's transaction. */
  async lockTenant(sql: Sql, tenantId: string): Promise<void> {
    await sql.query(`SELECT 1 FROM tenants WHERE id = $1 FOR UPDATE`, [tenantId]);
  }

  /** Active and candidate keys, and retired ones, newest first. */
  async list(sql: Sql, tenantId: string): Promise<SigningKeyRow[]> {
    const rows = await sql.query<Row>(
      `SELECT ${COLUMNS} FROM webhook_signing_keys WHERE tenant_id = $1 ORDER BY created_at DESC, kid DESC`,
      [tenantId],
    );
    return rows.map(toKey);
  }

  async findByStatus(sql: Sql, tenantId: string, status: LiveSigningKeyStatus): Promise<SigningKeyRow | undefined> {
    const [row] = await sql.query<Row>(`SELECT ${COLUMNS} FROM webhook_signing_keys WHERE tenant_id = $1 AND status = $2`, [
      tenantId,
      status,
    ]);
    return row && toKey(row);
  }

  async insert(sql: Sql, tenantId: string, kid: string, status: LiveSigningKeyStatus, secretSealed: Buffer): Promise<SigningKeyRow> {
    const [row] = await sql.query<Row>(
      `INSERT INTO webhook_signing_keys (tenant_id, kid, status, secret_sealed, activated_at)
       VALUES ($1, $2, $3, $4, CASE WHEN $3 = 'active' THEN now() END)
       RETURNING ${COLUMNS}`,
      [tenantId, kid, status, secretSealed],
    );
    return toKey(row);
  }

  /** Retires the tenant's key in `status` (a replaced candidate, or the active key at finalize). */
  async retire(sql: Sql, tenantId: string, status: LiveSigningKeyStatus): Promise<void> {
    await sql.query(`UPDATE webhook_signing_keys SET status = 'retired', retired_at = now() WHERE tenant_id = $1 AND status = $2`, [
      tenantId,
      status,
    ]);
  }

  async promoteCandidate(sql: Sql, tenantId: string): Promise<SigningKeyRow | undefined> {
    const [row] = await sql.query<Row>(
      `UPDATE webhook_signing_keys SET status = 'active', activated_at = now()
        WHERE tenant_id = $1 AND status = 'candidate' RETURNING ${COLUMNS}`,
      [tenantId],
    );
    return row && toKey(row);
  }
}
