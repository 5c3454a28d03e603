import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';

/** Where a claim looks for a tenant's free slot: the slots are 1..`limit` of the rows of `from`, and only if `allowed` holds. */
interface SlotScope {
  /** FROM items (no leading FROM) that `limit` and `allowed` read, e.g. `tenants t`. */
  from: string;
  limit: string;
  allowed: string;
}

/**
 * CTEs that claim one free slot of tenant `$1` for holder `$2` with a lease of `$3` ms; `claimed`
 * yields its number, or nothing. A slot's row, once made, stays (a release ends its lease), so a
 * claim is mostly an update of an ended lease: `FOR UPDATE SKIP LOCKED` hands requests that claim
 * at the same moment different rows, where picking among the free rows by their snapshot made
 * them collide and the losers go round again (two or three more round trips each, most often
 * when the tenant is near its limit). When no row is free and some slot numbers have none yet (a
 * new tenant, a raised limit, or after a Postgres crash emptied the unlogged table), the claim
 * makes them all, free, and takes the lowest: requests that do so at the same moment are the one
 * race left (`ON CONFLICT DO NOTHING`, the loser asks again and finds the rows). One rule for
 * admission and for `tryAcquire`.
 */
export function claimSlotCtes(scope: SlotScope): string {
  const lease = `now() + make_interval(secs => $3::double precision / 1000)`;
  return `free AS (
       SELECT f.slot FROM fetch_slots f, ${scope.from}
        WHERE f.tenant_id = $1 AND f.slot <= ${scope.limit} AND f.lease_until <= now() AND ${scope.allowed}
        LIMIT 1
        FOR UPDATE OF f SKIP LOCKED),
     reused AS (
       UPDATE fetch_slots f SET holder = $2, lease_until = ${lease}
         FROM free
        WHERE f.tenant_id = $1 AND f.slot = free.slot
       RETURNING f.slot),
     fresh AS (
       INSERT INTO fetch_slots (tenant_id, slot, holder, lease_until)
       SELECT $1, m.s, CASE WHEN m.first THEN $2 ELSE '' END, CASE WHEN m.first THEN ${lease} ELSE '-infinity' END
         FROM (SELECT s, s = min(s) OVER () AS first
                 FROM ${scope.from} CROSS JOIN LATERAL generate_series(1, ${scope.limit}) s
                WHERE ${scope.allowed}
                  AND NOT EXISTS (SELECT 1 FROM free)
                  AND NOT EXISTS (SELECT 1 FROM fetch_slots x WHERE x.tenant_id = $1 AND x.slot = s)) m
       ON CONFLICT (tenant_id, slot) DO NOTHING
       RETURNING slot, holder),
     claimed AS (SELECT slot FROM reused UNION ALL SELECT slot FROM fresh WHERE holder = $2)`;
}

/**
 * A CTE `released` that frees the slots of `leases` (see {@link leaseArrays}), each only if its
 * holder still holds it, as {@link ConcurrencySlotsRepository.release} does one; its parameters are
 * `$first` to `$first + 2`. Postgres runs a data-modifying CTE whether or not the statement reads it.
 */
export function releaseLeasesCte(first: number): string {
  return `released AS (
       UPDATE fetch_slots s SET lease_until = '-infinity', holder = ''
         FROM unnest($${first}::uuid[], $${first + 1}::int[], $${first + 2}::text[]) AS r(tenant_id, slot, holder)
        WHERE s.tenant_id = r.tenant_id AND s.slot = r.slot AND s.holder = r.holder AND s.lease_until > now())`;
}

/** The parameters of {@link releaseLeasesCte}. */
export function leaseArrays(leases: readonly SlotLease[]): [string[], number[], string[]] {
  return [leases.map((l) => l.tenantId), leases.map((l) => l.slot), leases.map((l) => l.holder)];
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
   * Takes a free slot in one statement (see {@link claimSlotCtes}), with the slots now held (this
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
      `WITH ${claimSlotCtes({ from: 'tenants t', limit: '$4::int', allowed: 't.id = $1' })}
       SELECT slot,
              -- The statement's snapshot is from before the claim: the slots held by others.
              (SELECT count(*)::int FROM fetch_slots x WHERE x.tenant_id = $1 AND x.slot <= $4 AND x.lease_until > now()) AS held_before
         FROM claimed`,
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
      `UPDATE fetch_slots SET lease_until = '-infinity', holder = ''
        WHERE tenant_id = $1 AND slot = $2 AND holder = $3 AND lease_until > now()`,
      [lease.tenantId, lease.slot, lease.holder],
    );
  }

  /** Frees many slots in one statement, each as {@link release} would. */
  async releaseMany(leases: readonly SlotLease[]): Promise<void> {
    await this.db.prepared('fetch_slots_release_many', `WITH ${releaseLeasesCte(1)} SELECT 1`, leaseArrays(leases));
  }
}
