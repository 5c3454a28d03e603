import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';

/**
 * The statement that claims one free slot of tenant `$1` for holder `$2` with a lease of `$3` ms,
 * among the slot numbers `s` that `candidates` (a FROM clause ending in a WHERE condition) yields;
 * it returns the slot and `returning`'s columns. Slots are tried in random order so that replicas
 * racing for a tenant's slots rarely pick the same one; a loser of such a race (the row was taken
 * between its read and its write) gets no row. One rule for admission and for `tryAcquire`.
 */
export function claimSlotSql(candidates: string, returning = ''): string {
  return `INSERT INTO fetch_slots AS f (tenant_id, slot, holder, lease_until)
       SELECT $1, s, $2, now() + make_interval(secs => $3::double precision / 1000)
         ${candidates}
          AND NOT EXISTS (SELECT 1 FROM fetch_slots x WHERE x.tenant_id = $1 AND x.slot = s AND x.lease_until > now())
        ORDER BY random()
        LIMIT 1
       ON CONFLICT (tenant_id, slot) DO UPDATE
          SET holder = excluded.holder, lease_until = excluded.lease_until
        WHERE f.lease_until <= now()
       RETURNING slot${returning}`;
}

/** A held concurrency slot: release it with the same holder. */
export interface SlotLease {
  tenantId: string;
  slot: number;
  holder: string;
}

/**
 * Concurrency slots of a tenant as rows `(tenant_id, slot)` with slot in 1..concurrency: holding a
 * slot is owning its row with a live lease, so the limit holds across every gateway replica, and
 * the slots of a crashed replica free themselves when their leases pass. Lowering a tenant's
 * concurrency frees nothing in flight; slots above the new limit are simply never handed out again.
 */
@Injectable()
export class ConcurrencySlotsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Takes a free slot in one statement (see {@link claimSlotSql}), with the slots now held (this
   * one included); `undefined` when none was free or a race was lost, and the caller asks again
   * while slots remain.
   */
  async tryAcquire(
    tenantId: string,
    limit: number,
    holder: string,
    leaseMs: number,
  ): Promise<{ slot: number; inUse: number } | undefined> {
    const rows = await this.db.prepared<{ slot: number; held_before: number }>(
      'fetch_slots_acquire',
      claimSlotSql(
        'FROM generate_series(1, $4::int) s WHERE true',
        // The statement's snapshot is from before the insert: the slots held by others.
        `, (SELECT count(*)::int FROM fetch_slots x WHERE x.tenant_id = $1 AND x.slot <= $4 AND x.lease_until > now()) AS held_before`,
      ),
      [tenantId, holder, leaseMs, limit],
    );
    const row = rows[0];
    return row && { slot: row.slot, inUse: row.held_before + 1 };
  }

  /** Slots held now among 1..limit. */
  async inUse(tenantId: string, limit: number): Promise<number> {
    const rows = await this.db.prepared<{ count: number }>(
      'fetch_slots_in_use',
      `SELECT count(*)::int AS count FROM fetch_slots WHERE tenant_id = $1 AND slot <= $2 AND lease_until > now()`,
      [tenantId, limit],
    );
    return rows[0]?.count ?? 0;
  }

  /**
   * Frees the slot if `holder` still holds it (a lease that passed may belong to another request now).
   * The row stays, its lease ended: the next claim of the slot is then an update in place (no new
   * row, no foreign key check, no dead row for each request).
   */
  async release(lease: SlotLease): Promise<void> {
    await this.db.prepared(
      'fetch_slots_release',
      `UPDATE fetch_slots SET lease_until = '-infinity', holder = '' WHERE tenant_id = $1 AND slot = $2 AND holder = $3`,
      [lease.tenantId, lease.slot, lease.holder],
    );
  }
}
