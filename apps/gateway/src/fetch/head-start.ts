import { TtlLruCache } from '../auth/ttl-lru-cache';
import type { AdmissionSnapshot } from '../limits/admission.repository';
import type { Account, PlanFeature } from '../tenants/account';
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

  constructor(
    private readonly options: { maxAgeMs: number; maxTenants: number; now?: () => number },
  ) {
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
    if ((last.slotsInUse + coming) * 2 > account.concurrency) return undefined;
    const requestsThisMinute = this.now() < last.windowEndsAt ? last.requestsThisMinute : 0;
    if ((requestsThisMinute + coming) * 2 > account.rateLimitPerMinute) return undefined;
    const may = accountMay(
      { ...account, creditsUsed: account.creditsUsed + needs.pendingCredits },
      { product: 'fetch', features: needs.features, credits: needs.credits * coming * 2 },
    );
    return may ? account : undefined;
  }

  /** Counts an admission of `tenantId` under way; call the returned function when it has returned or failed. */
  admissionStarted(tenantId: string): () => void {
    this.admitting.set(tenantId, (this.admitting.get(tenantId) ?? 0) + 1);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const left = (this.admitting.get(tenantId) ?? 1) - 1;
      if (left > 0) this.admitting.set(tenantId, left);
      else this.admitting.delete(tenantId);
    };
  }

  /**
   * Remembers what an admission of `tenantId` showed; `slotsInUse` counts the slot it took, if any.
   * Any admission refreshes it, a refused one too: the next request is judged by the newest state.
   */
  admitted(tenantId: string, snapshot: AdmissionSnapshot, slotsInUse: number): void {
    this.last.set(tenantId, {
      account: snapshot.account,
      slotsInUse,
      requestsThisMinute: snapshot.requestsThisMinute,
      windowEndsAt: this.now() + snapshot.windowResetsInMs,
    });
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
