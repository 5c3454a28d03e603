import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';
import { ACCOUNT_COLUMNS, AccountRow, toAccount } from '../tenants/accounts.repository';
import { claimSlotCtes, leaseArrays, releaseLeasesCte, SlotLease } from './concurrency-slots.repository';
import type { Account } from '../tenants/account';
import type { UnusedRequests } from './allotments';

/** What the gateway knows about a tenant when a Fetch request arrives. */
export interface AdmissionSnapshot {
  account: Account;
  /** Requests of the tenant in the current minute, this one included. */
  requestsThisMinute: number;
  /** Time until the rate window resets, in ms. */
  windowResetsInMs: number;
  /** Concurrency slots held now (live leases), across every replica, not counting one taken for this request. */
  slotsInUse: number;
}

/** What one statement admitting several requests of a tenant learnt. */
export interface BatchAdmission {
  account: Account;
  /** Requests of the tenant in the current minute, this statement's and those it set aside included. */
  requestsThisMinute: number;
  /** Requests counted besides the holders and set aside for this replica to admit on its own (see Allotments). */
  granted: number;
  /** Start of the window, ms since the epoch. */
  windowStartMs: number;
  windowResetsInMs: number;
  /** Slots held by others when the statement ran. */
  slotsInUse: number;
  /** The slot taken for each holder that got one. */
  slots: Map<string, number>;
}

/**
 * One round trip on the Fetch hot path: counts requests in the tenant's one-minute rate window,
 * reads the account and the slots in use, and takes a free concurrency slot for each holder the
 * window allows (a request that then fails a check gives it back; see LimitsService). Requests of
 * one tenant arriving together share the statement: holders in the order they arrived, so the
 * rate allows the first ones. The window is one row per tenant rewritten in place (a fixed window:
 * a burst across a minute boundary may get up to twice the limit in 60 s). Slots are claimed by
 * {@link claimSlotCtes}, as `ConcurrencySlotsRepository.tryAcquire` claims them.
 */
@Injectable()
export class AdmissionRepository {
  constructor(private readonly db: Database) {}

  /**
   * Admits `withSlot` requests that have a slot, then `holders` (one per request, distinct) of the tenant. Also frees the slots of
   * `releasing` (any tenant's), which saves each of those releases a statement of its own; a slot
   * freed so is not yet free to this statement's claims and still counts in its `slotsInUse`.
   */
  async countRequestsAndRead(
    tenantId: string,
    holders: readonly string[],
    leaseMs: number,
    releasing: readonly SlotLease[] = [],
    /** Requests beyond `holders` to count and set aside for this replica, at most (see {@link BatchAdmission.granted}). */
    setAside = 0,
    /** Requests to count before `holders` that need no slot (they have one kept on this replica). */
    withSlot = 0,
  ): Promise<BatchAdmission | undefined> {
    // The window's count before this statement (0 in a new window) and what is set aside from it:
    // at most half of what is left below half the minute's limit after the holders, so that the
    // count stays within half the limit (where Allotments admits) and a window past half sets
    // nothing aside: every request there is counted by a statement of its own.
    const before = `CASE WHEN w.window_start = excluded.window_start THEN w.requests ELSE 0 END`;
    const grant = (count: string, limit: string) =>
      `least($7::int, greatest(0, (${limit} / 2 - ${count} - cardinality($2::text[]) - $8::int) / 2))`;
    const limitOfTenant = `(SELECT rate_limit_per_minute FROM tenants WHERE id = $1)`;
    const rows = await this.db.prepared<
      AccountRow & {
        requests: number;
        granted: number;
        window_start_ms: number;
        resets_in_ms: number;
        slots_in_use: number;
        claimed_slots: number[];
        claimed_holders: string[];
      }
    >(
      'fetch_admission',
      `WITH rate AS (
         INSERT INTO fetch_rate_windows AS w (tenant_id, window_start, requests, granted)
         SELECT t.id, date_trunc('minute', now()), cardinality($2::text[]) + $8::int + g.n, g.n
           FROM tenants t, LATERAL (SELECT ${grant('0', 't.rate_limit_per_minute')} AS n) g
          WHERE t.id = $1
         ON CONFLICT (tenant_id) DO UPDATE
            SET granted = ${grant(before, limitOfTenant)},
                requests = ${before} + cardinality($2::text[]) + $8::int + ${grant(before, limitOfTenant)},
                window_start = excluded.window_start
         RETURNING requests - granted AS requests, granted, window_start),
       ${claimSlotCtes({
         // The holders the minute's limit still allows, first come first (those with a slot already came first).
         want: `least(cardinality($2::text[]), greatest(0, t.rate_limit_per_minute - rate.requests + cardinality($2::text[]))) AS n,
                t.concurrency AS lim FROM tenants t, rate WHERE t.id = $1`,
       })},
       ${releaseLeasesCte(4)}
       SELECT ${ACCOUNT_COLUMNS}, rate.requests + rate.granted AS requests, rate.granted,
              extract(epoch FROM rate.window_start)::float8 * 1000 AS window_start_ms,
              ceil(extract(epoch FROM rate.window_start + interval '1 minute' - now()) * 1000)::int AS resets_in_ms,
              -- The statement's snapshot is from before the insert: the slots held by others.
              (SELECT count(*)::int FROM fetch_slots s
                WHERE s.tenant_id = t.id AND s.lease_until > now() AND s.slot <= t.concurrency) AS slots_in_use,
              (SELECT coalesce(array_agg(slot ORDER BY slot), '{}') FROM claimed) AS claimed_slots,
              (SELECT coalesce(array_agg(holder ORDER BY slot), '{}') FROM claimed) AS claimed_holders
         FROM tenants t, rate
        WHERE t.id = $1`,
      [tenantId, holders, leaseMs, ...leaseArrays(releasing), setAside, withSlot],
    );
    const row = rows[0];
    if (!row) return undefined;
    const slots = new Map<string, number>();
    row.claimed_holders.forEach((holder, i) => slots.set(holder, row.claimed_slots[i]!));
    return {
      account: toAccount(row),
      requestsThisMinute: row.requests,
      granted: row.granted,
      windowStartMs: row.window_start_ms,
      windowResetsInMs: Math.max(0, row.resets_in_ms),
      slotsInUse: row.slots_in_use,
      slots,
    };
  }

  /** Takes requests set aside and not used off their windows' counts (a window that has ended keeps its count: it no longer matters). */
  async returnRequests(unused: readonly UnusedRequests[]): Promise<void> {
    if (unused.length === 0) return;
    await this.db.prepared(
      'fetch_rate_return',
      `UPDATE fetch_rate_windows w SET requests = greatest(0, w.requests - r.n)
         FROM unnest($1::uuid[], $2::float8[], $3::int[]) AS r(tenant_id, window_start_ms, n)
        WHERE w.tenant_id = r.tenant_id AND w.window_start = to_timestamp(r.window_start_ms / 1000)`,
      [unused.map((u) => u.tenantId), unused.map((u) => u.windowStartMs), unused.map((u) => u.requests)],
    );
  }
}
