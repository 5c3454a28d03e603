import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';

/**
 * Where a claim looks for a tenant's free slots: `want` yields one row (or none: nothing claimed)
 * with `n`, how many slots to claim, and `lim`, the tenant's limit (slots are 1..lim).
 */
interface SlotScope {
  /** A SELECT list and FROM clause producing `n` and `lim`, e.g. `1 AS n, t.concurrency AS lim FROM tenants t WHERE t.id = $1`. */
  want: string;
}

/**
 * CTEs that claim up to `n` free slots of tenant `$1` for the holders `$2` (text[], in order: the
 * first `n` of them are served, lowest slot first) with a lease of `$3` ms; `claimed` yields each
 * claim's `slot` and `holder`. A slot's row, once made, stays (a release ends its lease), so a
 * claim is mostly an update of an ended lease: `FOR UPDATE SKIP LOCKED` hands statements that
 * claim at the same moment different rows, where picking among the free rows by their snapshot
 * made them collide and the losers go round again (two or three more round trips each, most often
 * when the tenant is near its limit). When fewer rows are free than wanted and some slot numbers
 * have none yet (a new tenant, a raised limit, or after a Postgres crash emptied the unlogged
 * table), the claim makes them all, free, and takes the lowest it still needs: statements that do
 * so at the same moment are the one race left (`ON CONFLICT DO NOTHING`; a holder left without a
 * slot asks again and finds the rows). One rule for admission and for `tryAcquire`.
 */
export function claimSlotCtes(scope: SlotScope): string {
  const lease = `now() + make_interval(secs => $3::double precision / 1000)`;
  return `want AS (SELECT ${scope.want}),
     free AS (
       SELECT f.slot FROM fetch_slots f
        WHERE f.tenant_id = $1 AND f.slot <= coalesce((SELECT lim FROM want), 0) AND f.lease_until <= now()
        ORDER BY f.slot
        LIMIT coalesce((SELECT n FROM want), 0)
        FOR UPDATE SKIP LOCKED),
     picked AS (SELECT slot, row_number() OVER (ORDER BY slot) AS i FROM free),
     holders AS (SELECT holder, i FROM unnest($2::text[]) WITH ORDINALITY AS h(holder, i)),
     reused AS (
       UPDATE fetch_slots f SET holder = h.holder, lease_until = ${lease}
         FROM picked p JOIN holders h ON h.i = p.i
        WHERE f.tenant_id = $1 AND f.slot = p.slot
       RETURNING f.slot, f.holder),
     fresh AS (
       INSERT INTO fetch_slots (tenant_id, slot, holder, lease_until)
       SELECT $1, m.s, coalesce(h.holder, ''), CASE WHEN h.holder IS NULL THEN '-infinity' ELSE ${lease} END
         FROM (SELECT s, (SELECT count(*) FROM picked) + row_number() OVER (ORDER BY s) AS i, want.n
                 FROM want CROSS JOIN LATERAL generate_series(1, want.lim) s
                WHERE (SELECT count(*) FROM picked) < want.n
                  AND NOT EXISTS (SELECT 1 FROM fetch_slots x WHERE x.tenant_id = $1 AND x.slot = s)) m
         LEFT JOIN holders h ON h.i = m.i AND m.i <= m.n
       ON CONFLICT (tenant_id, slot) DO NOTHING
       RETURNING slot, holder),
     claimed AS (SELECT slot, holder FROM reused UNION ALL SELECT slot, holder FROM fresh WHERE holder <> '')`;
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
  async tryAcquire(tenantId: string, limit: number, holder: string, leaseMs: number): Promise<{ slot: number; inUse: number } | undefined> {
    const rows = await this.db.prepared<{ slot: number; held_before: number }>(
      'fetch_slots_acquire',
      `WITH ${claimSlotCtes({ want: '1 AS n, $4::int AS lim FROM tenants t WHERE t.id = $1' })}
       SELECT slot,
              -- The statement's snapshot is from before the claim: the slots held by others.
              (SELECT count(*)::int FROM fetch_slots x WHERE x.tenant_id = $1 AND x.slot <= $4 AND x.lease_until > now()) AS held_before
         FROM claimed`,
      [tenantId, [holder], leaseMs, limit],
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

  /**
   * Sets the leases of slots their holders still hold to `leaseMs` from now, in one statement;
   * answers the ones renewed (a lease that passed is not taken back: its slot may be another's).
   */
  async renew(leases: readonly SlotLease[], leaseMs: number): Promise<SlotLease[]> {
    if (leases.length === 0) return [];
    const rows = await this.db.prepared<{ tenant_id: string; slot: number; holder: string }>(
      'fetch_slots_renew',
      `UPDATE fetch_slots s SET lease_until = now() + make_interval(secs => $4::double precision / 1000)
         FROM unnest($1::uuid[], $2::int[], $3::text[]) AS r(tenant_id, slot, holder)
        WHERE s.tenant_id = r.tenant_id AND s.slot = r.slot AND s.holder = r.holder AND s.lease_until > now()
       RETURNING s.tenant_id, s.slot, s.holder`,
      [...leaseArrays(leases), leaseMs],
    );
    return rows.map((row) => ({ tenantId: row.tenant_id, slot: row.slot, holder: row.holder }));
  }

  /** Frees many slots in one statement, each as {@link release} would. */
  async releaseMany(leases: readonly SlotLease[]): Promise<void> {
    await this.db.prepared('fetch_slots_release_many', `WITH ${releaseLeasesCte(1)} SELECT 1`, leaseArrays(leases));
  }
}
