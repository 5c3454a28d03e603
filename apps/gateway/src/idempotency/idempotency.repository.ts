import { Injectable } from '@nestjs/common';
import { Database, Sql } from '@trawl/persistence';

/** Identifies one idempotency key of one tenant in one scope (e.g. `crawls.create`). */
export interface IdempotencyKeyId {
  tenantId: string;
  scope: string;
  key: string;
}

export interface IdempotencyKeyRecord {
  bodyHash: Buffer;
  state: 'in_flight' | 'done';
  resourceId: string | null;
  /** `updated_at` as Postgres prints it (microseconds kept): identifies the current holder. */
  holderToken: string;
  /** In flight for longer than the takeover age. */
  stale: boolean;
}

/**
 * SQL of `idempotency_keys`. A holder of an `in_flight` row is identified by the row's `updated_at`
 * (set from `clock_timestamp()` on each claim), so a request that lost its claim to a takeover can
 * neither complete nor release the new holder's row. UPDATEs run inside a CTE and answer through a
 * SELECT: TypeORM returns `[rows, rowCount]` instead of rows for a bare UPDATE/DELETE.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly db: Database) {}

  /** Inserts an `in_flight` row in its own statement; `undefined` when the key already exists. */
  async insertInFlight(id: IdempotencyKeyId, bodyHash: Buffer): Promise<string | undefined> {
    const rows = await this.db.query<{ token: string }>(
      `INSERT INTO idempotency_keys (tenant_id, scope, key, body_hash, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, 'in_flight', clock_timestamp(), clock_timestamp())
       ON CONFLICT DO NOTHING
       RETURNING updated_at::text AS token`,
      [id.tenantId, id.scope, id.key, bodyHash],
    );
    return rows[0]?.token;
  }

  async find(id: IdempotencyKeyId, staleAfterSeconds: number): Promise<IdempotencyKeyRecord | undefined> {
    const rows = await this.db.query<{
      body_hash: Buffer;
      state: 'in_flight' | 'done';
      resource_id: string | null;
      token: string;
      stale: boolean;
    }>(
      `SELECT body_hash, state, resource_id, updated_at::text AS token,
              (state = 'in_flight' AND updated_at < clock_timestamp() - make_interval(secs => $4)) AS stale
         FROM idempotency_keys
        WHERE tenant_id = $1 AND scope = $2 AND key = $3`,
      [id.tenantId, id.scope, id.key, staleAfterSeconds],
    );
    const row = rows[0];
    return (
      row && {
        bodyHash: row.body_hash,
        state: row.state,
        resourceId: row.resource_id,
        holderToken: row.token,
        stale: row.stale,
      }
    );
  }

  /** Takes over a stale `in_flight` row from `previousToken`; `undefined` when someone else was faster. */
  async takeOver(id: IdempotencyKeyId, previousToken: string): Promise<string | undefined> {
    const rows = await this.db.query<{ token: string }>(
      `WITH taken AS (
         UPDATE idempotency_keys SET updated_at = clock_timestamp()
          WHERE tenant_id = $1 AND scope = $2 AND key = $3 AND state = 'in_flight' AND updated_at = $4::timestamptz
          RETURNING updated_at)
       SELECT updated_at::text AS token FROM taken`,
      [id.tenantId, id.scope, id.key, previousToken],
    );
    return rows[0]?.token;
  }

  /** Marks the key `done` inside the transaction that made the resource; false when the claim was lost. */
  async markDone(sql: Sql, id: IdempotencyKeyId, token: string, resourceId: string): Promise<boolean> {
    const [result] = await sql.query<{ updated: number }>(
      `WITH done AS (
         UPDATE idempotency_keys SET state = 'done', resource_id = $5, updated_at = clock_timestamp()
          WHERE tenant_id = $1 AND scope = $2 AND key = $3 AND state = 'in_flight' AND updated_at = $4::timestamptz
          RETURNING 1)
       SELECT count(*)::int AS updated FROM done`,
      [id.tenantId, id.scope, id.key, token, resourceId],
    );
    return result?.updated === 1;
  }

  /** Deletes the `in_flight` row if `token` still holds it. */
  async release(id: IdempotencyKeyId, token: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys
        WHERE tenant_id = $1 AND scope = $2 AND key = $3 AND state = 'in_flight' AND updated_at = $4::timestamptz`,
      [id.tenantId, id.scope, id.key, token],
    );
  }
}
