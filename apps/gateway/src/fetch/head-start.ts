import { TtlLruCache } from '../auth/ttl-lru-cache';
import type { AdmissionSnapshot } from '../limits/admission.repository';
import { addTo } from '../limits/counts';
import type { PlanFeature } from '@trawl/contracts';
import type { Account } from '../tenants/account';
import { accountMay } from '../tenants/account-standing';

/** What this replica's last admission of a tenant showed. */
interface LastAdmission {
  account: Account;
  /** Slots the tenant held across every replica right after that admission, its own included. */
  slotsInUse: number;
  requestsThisMinute: number;
  /** When the rate window of `requestsThisMinute` ends (ms since the epoch). */
  windowEndsAt: number;
}

/** What a request would ask of its account. */
export interface HeadStartNeeds {
  features: readonly PlanFeature[];
  /** Credits the request costs at least. */
  credits: number;
  /** Credits this replica billed the tenant but has not written yet. */
  pendingCredits: number;
  /** Concurrency slots of the tenant this replica holds now. */
  slotsHeldHere: number;
}

/**
 * Decides which Fetch requests go to a worker while their admission (one Postgres round trip) is
 * still under way, so that the round trip overlaps the worker's fetch instead of adding to it, as
 * API proxies that check quotas against a remote store do (cached check, quota settled meanwhile).
 *
 * A request starts early only when this replica admitted the same tenant within `maxAgeMs` and
 * that admission left it far from every limit even counting the admissions still under way here:
 * at most half its concurrency slots and half its rate window, twice the credits those requests
 * could cost, and a plan that allows what it asks. Admission still decides: a request it refuses is
 * called off at the worker and answered with the refusal, unbilled. Being so far from the limits,
 * a tenant is refused after a head start only when its load more than doubled within `maxAgeMs`
 * (across replicas) or an operator changed its account meanwhile.
 */
export class HeadStarts {
  private readonly last: TtlLruCache<string, LastAdmission>;
  /** Admissions under way on this replica, by tenant. */
  private readonly admitting = new Map<string, number>();

  constructor(private readonly options: { maxAgeMs: number; maxTenants: number; now?: () => number }) {
    this.last = new TtlLruCache({ ttlMs: options.maxAgeMs, maxEntries: options.maxTenants, now: options.now });
  }

  /**
   * The account as last admitted when a request of `tenantId` that needs `needs` may go to a worker
   * before its admission returns; `undefined` when it must wait.
   */
  startable(tenantId: string, needs: HeadStartNeeds): Account | undefined {
    const last = this.last.get(tenantId);
    if (!last) return undefined;
    const account = last.account;
    // This request, and those of the tenant whose admission this replica is still waiting for.
    const coming = (this.admitting.get(tenantId) ?? 0) + 1;
    // The snapshot counts every replica but ages; what this replica holds now is exact. Under a
    // steady load here, snapshots taken by concurrent admissions each miss the others' slots.
    const inUse = Math.max(last.slotsInUse, needs.slotsHeldHere);
    if ((inUse + coming) * 2 > account.concurrency) return undefined;
    const requestsThisMinute = this.now() < last.windowEndsAt ? last.requestsThisMinute : 0;
    if ((requestsThisMinute + coming) * 2 > account.rateLimitPerMinute) return undefined;
    const may = accountMay(
      { ...account, creditsUsed: account.creditsUsed + needs.pendingCredits },
      { product: 'fetch', features: needs.features, credits: needs.credits * coming * 2 },
    );
    return may ? account : undefined;
  }

  /**
   * Counts an admission of `tenantId` under way. Tell the returned handle what it showed
   * (`admitted`, with `slotsInUse` counting the slot it took or will take), and `end` it once it
   * has returned or failed. Any admission refreshes the view, a refused one too, unless Postgres
   * ran it before the one kept: the next request is judged by the newest state.
   */
  admissionStarted(tenantId: string): { admitted(snapshot: AdmissionSnapshot, slotsInUse: number): void; end(): void } {
    const end = counter(this.admitting, tenantId);
    return {
      admitted: (snapshot, slotsInUse) => {
        const seen: LastAdmission = {
          account: snapshot.account,
          slotsInUse,
          requestsThisMinute: snapshot.requestsThisMinute,
          windowEndsAt: this.now() + snapshot.windowResetsInMs,
        };
        const kept = this.last.get(tenantId);
        if (kept && ranBefore(seen, kept)) return;
        this.last.set(tenantId, seen);
      },
      end,
    };
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/**
 * Whether Postgres ran admission `a` before `b`. Admissions of a tenant take its rate-window row in
 * turn, so within a window the request count orders them; the order they started in here does not
 * (one may wait longer for a pooled connection). Window ends agree to well within 10 s.
 */
function ranBefore(a: LastAdmission, b: LastAdmission): boolean {
  const windowA = Math.round(a.windowEndsAt / 10_000);
  const windowB = Math.round(b.windowEndsAt / 10_000);
  return windowA !== windowB ? windowA < windowB : a.requestsThisMinute < b.requestsThisMinute;
}

/** Adds one to `key`'s count; the returned function takes it away again (once), deleting a count of 0. */
function counter(counts: Map<string, number>, key: string): () => void {
  addTo(counts, key, 1);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    addTo(counts, key, -1);
  };
}
