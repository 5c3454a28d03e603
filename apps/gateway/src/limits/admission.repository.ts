import { Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';
import { ACCOUNT_COLUMNS, AccountRow, toAccount } from '../tenants/accounts.repository';
import { claimSlotCtes, leaseArrays, releaseLeasesCte, SlotLease } from './concurrency-slots.repository';
import type { Account } from '../tenants/account';

/** What the gateway knows about a tenant when a Fetch request arrives. */
export interface AdmissionSnapshot {
  account: Account;
  /** Requests of the tenant in the current minute, this one included. */
  requestsThisMinute: number;
  /** Time until the rate window resets, in ms. */
  windowResetsInMs: number;
  /** Concurrency slots held now (live leases), across every replica, not counting `slot`. */
  slotsInUse: number;
  /** The slot taken for this request by the same statement, when one was free and the rate allowed it. */
  slot?: number;
}

/**
 * One round trip on the Fetch hot path: counts the request in the tenant's one-minute rate window,
 * reads the account and the slots in use, and takes a free concurrency slot for `holder` when the
 * window allows the request (a request that then fails a check gives it back; see LimitsService).
 * The window is one row per tenant rewritten in place (a fixed window: a burst across a minute
 * boundary may get up to twice the limit in 60 s). The slot is claimed by {@link claimSlotCtes}, as
 * `ConcurrencySlotsRepository.tryAcquire` claims it.
 */
@Injectable()
export class AdmissionRepository {
  constructor(private readonly db: Database) {}

  /**
   * Also frees the slots of `releasing` (any tenant's), which saves each of those releases a
   * statement of its own; a slot freed so is not yet free to this statement's claim and still
   * counts in its `slotsInUse`.
   */
  async countRequestAndRead(
    tenantId: string,
    holder: string,
    leaseMs: number,
    releasing: readonly SlotLease[] = [],
  ): Promise<AdmissionSnapshot | undefined> {
    const rows = await this.db.prepared<AccountRow & { requests: number; resets_in_ms: number; slots_in_use: number; slot: number | null }>(
      'fetch_admission',
      `WITH rate AS (
         INSERT INTO fetch_rate_windows AS w (tenant_id, window_start, requests)
         VALUES ($1, date_trunc('minute', now()), 1)
         ON CONFLICT (tenant_id) DO UPDATE
            SET requests = CASE WHEN w.window_start = excluded.window_start THEN w.requests + 1 ELSE 1 END,
                window_start = excluded.window_start
         RETURNING requests, window_start),
       ${claimSlotCtes({ from: 'tenants t, rate', limit: 't.concurrency', allowed: 't.id = $1 AND rate.requests <= t.rate_limit_per_minute' })},
       ${releaseLeasesCte(4)}
       SELECT ${ACCOUNT_COLUMNS}, rate.requests,
              ceil(extract(epoch FROM rate.window_start + interval '1 minute' - now()) * 1000)::int AS resets_in_ms,
              -- The statement's snapshot is from before the insert: the slots held by others.
              (SELECT count(*)::int FROM fetch_slots s
                WHERE s.tenant_id = t.id AND s.lease_until > now() AND s.slot <= t.concurrency) AS slots_in_use,
              (SELECT slot FROM claimed) AS slot
         FROM tenants t, rate
        WHERE t.id = $1`,
      [tenantId, holder, leaseMs, ...leaseArrays(releasing)],
    );
    const row = rows[0];
    return (
      row && {
        account: toAccount(row),
        requestsThisMinute: row.requests,
        windowResetsInMs: Math.max(0, row.resets_in_ms),
        slotsInUse: row.slots_in_use,
        ...(row.slot !== null && { slot: row.slot }),
      }
    );
  }
}
