import type { Account } from '../tenants/account';
import { accountMay } from '../tenants/account-standing';
import type { SlotLease } from './concurrency-slots.repository';

export interface AllotmentsOptions {
  /** How long the account an admission statement read may admit requests here without another, in ms. */
  accountMaxAgeMs: number;
  /** How long a slot may sit unused here before it goes back, in ms. */
  idleMs: number;
  /**
   * How long after its lease was last set (claimed or renewed) an idle slot may still be handed
   * out: the lease must outlast the longest request from then on, so this stays well inside the
   * lease's slack past the longest request. In ms.
   */
  reusableMs: number;
  /** Most requests of a tenant's rate window a statement asks to set aside for this replica. */
  maxRequests: number;
  now?: () => number;
}

/** What an admission statement learnt about a tenant, for its allotment. */
export interface StatementView {
  account: Account;
  /** Start of the rate window the statement counted in, ms since the epoch (Postgres' clock). */
  windowStartMs: number;
  /** When that window ends, on this replica's clock. */
  windowEndsAt: number;
  /** Requests of the tenant in the window after the statement, what it set aside included. */
  requestsThisMinute: number;
  /** Requests the statement set aside for this replica. */
  granted: number;
  /** Slots held by other replicas when the statement ran. */
  othersInUse: number;
}

/** A request admitted here without a statement. */
export interface LocalAdmission {
  account: Account;
  requestsThisMinute: number;
  windowResetsInMs: number;
  /** Slots held across replicas by the tenant as this replica knows it, not counting this request's. */
  slotsInUse: number;
  /** An idle slot of the tenant this replica held; without one, the request claims one itself. */
  slot?: KeptSlot;
}

/** A slot held here, and when its lease was last set (this replica's clock, from before the statement that set it). */
export interface KeptSlot {
  lease: SlotLease;
  leaseSetAt: number;
}

/** What a request asks of its account, and what this replica holds of the tenant now. */
export interface LocalNeeds {
  /** Credits the request costs at least. */
  credits: number;
  /** Credits this replica billed the tenant but has not written yet. */
  pendingCredits: number;
  /** Slots of the tenant this replica has handed to requests under way. */
  slotsHeldHere: number;
}

/** Requests set aside in a window and not used, to be taken off its count. */
export interface UnusedRequests {
  tenantId: string;
  windowStartMs: number;
  requests: number;
}

/** What goes back to Postgres: idle slots, and unused requests of still-open windows. */
export interface GivenBack {
  leases: SlotLease[];
  requests: UnusedRequests[];
}

interface IdleSlot extends KeptSlot {
  idleSince: number;
}

interface Allotment {
  view: StatementView;
  seenAt: number;
  /** Requests counted in the window and not yet used here. */
  reserved: number;
  /** Requests admitted here since the last statement: how many the next one asks to set aside. */
  usedSinceStatement: number;
  idle: IdleSlot[];
}

/**
 * A tenant's share of its limits that this gateway replica holds between admission statements, so
 * that a busy tenant's requests are admitted and end without a Postgres round trip each. Both
 * limits stay counted in Postgres, which keeps them exact across replicas and crashes:
 *
 * - **Rate**: an admission statement counts, besides its own requests, up to `maxRequests` more
 *   (while the window stays within half the limit) and sets them aside for
 *   this replica, which admits that many on its own while the account it read is fresh. Set aside
 *   and unused, they count against the tenant (never for it) until the window ends or another
 *   replica about to refuse the tenant asks for them back.
 * - **Concurrency**: a slot whose request ended while the tenant was far from its limit stays held
 *   in Postgres and waits here for the tenant's next request; one idle for `idleMs` goes back.
 *   A slot is handed out only while its lease outlasts the longest request by its slack.
 *
 * Only a tenant far from its limits (as {@link HeadStarts} judges it: at most half its slots, half
 * its window, credits for twice what is set aside) is admitted here; nearer, every request goes to
 * Postgres as before. A replica about to refuse a tenant asks the others for what they hold idle
 * first, so what sits here never makes another replica refuse a request it could serve.
 */
export class Allotments {
  private readonly tenants = new Map<string, Allotment>();
  /** When each tenant's allotment was last given back: a statement that started before then read what may have changed since. */
  private readonly givenBackAt = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly options: AllotmentsOptions) {
    this.now = options.now ?? Date.now;
  }

  get enabled(): boolean {
    return this.options.accountMaxAgeMs > 0;
  }

  /** Admits a request of `tenantId` here when its allotment allows it; `undefined` when a statement must. */
  take(tenantId: string, needs: LocalNeeds): LocalAdmission | undefined {
    const allotment = this.tenants.get(tenantId);
    if (!allotment || !this.enabled) return undefined;
    const now = this.now();
    const { view } = allotment;
    if (now - allotment.seenAt > this.options.accountMaxAgeMs || now >= view.windowEndsAt || allotment.reserved < 1) return undefined;
    const account = view.account;
    const slotsInUse = view.othersInUse + needs.slotsHeldHere;
    if ((slotsInUse + 1) * 2 > account.concurrency) return undefined;
    if (view.requestsThisMinute * 2 > account.rateLimitPerMinute) return undefined;
    const may = accountMay(
      { ...account, creditsUsed: account.creditsUsed + needs.pendingCredits },
      { product: 'fetch', features: [], credits: needs.credits * allotment.reserved * 2 },
    );
    if (!may) return undefined;
    allotment.reserved -= 1;
    allotment.usedSinceStatement += 1;
    return {
      account,
      requestsThisMinute: view.requestsThisMinute - allotment.reserved,
      windowResetsInMs: view.windowEndsAt - now,
      slotsInUse,
      slot: this.takeIdle(tenantId, account.concurrency),
    };
  }

  /** An idle slot of the tenant below `limit` whose lease still has its slack, or `undefined`. */
  takeIdle(tenantId: string, limit: number): KeptSlot | undefined {
    const allotment = this.tenants.get(tenantId);
    if (!allotment) return undefined;
    const now = this.now();
    const i = allotment.idle.findIndex((slot) => slot.lease.slot <= limit && now - slot.leaseSetAt <= this.options.reusableMs);
    if (i < 0) return undefined;
    const { lease, leaseSetAt } = allotment.idle.splice(i, 1)[0]!;
    return { lease, leaseSetAt };
  }

  /** Idle slots of the tenant held here. */
  idleCount(tenantId: string): number {
    return this.tenants.get(tenantId)?.idle.length ?? 0;
  }

  /** How many requests the tenant's next statement asks to set aside: twice what was used here since the last, and one more. */
  wanted(tenantId: string): number {
    if (!this.enabled) return 0;
    const allotment = this.tenants.get(tenantId);
    // Past half the window, nothing set aside could be admitted here.
    if (
      allotment &&
      allotment.view.requestsThisMinute * 2 > allotment.view.account.rateLimitPerMinute &&
      this.now() < allotment.view.windowEndsAt
    ) {
      return 0;
    }
    const used = allotment?.usedSinceStatement ?? 0;
    const target = Math.min(this.options.maxRequests, 2 * used + 1);
    return Math.max(0, target - (allotment && this.now() < allotment.view.windowEndsAt ? allotment.reserved : 0));
  }

  /** Takes in what a statement learnt and set aside; `requests` it admitted itself count as used here. */
  learnt(tenantId: string, view: StatementView, requests: number, startedAt: number): void {
    if (startedAt <= (this.givenBackAt.get(tenantId) ?? -Infinity)) return;
    const allotment = this.tenants.get(tenantId);
    const now = this.now();
    if (!allotment) {
      this.tenants.set(tenantId, { view, seenAt: startedAt, reserved: view.granted, usedSinceStatement: requests, idle: [] });
      return;
    }
    const sameWindow = allotment.view.windowStartMs === view.windowStartMs && now < allotment.view.windowEndsAt;
    // A statement that ran before the one kept (pooled connections do not keep order) adds what it set aside, nothing else.
    if (startedAt >= allotment.seenAt || !sameWindow) {
      allotment.view = view;
      allotment.seenAt = startedAt;
    }
    allotment.reserved = (sameWindow ? allotment.reserved : 0) + view.granted;
    allotment.usedSinceStatement = requests;
  }

  /**
   * Keeps the slot of a request that ended for the tenant's next request, when the tenant is far
   * from its limit (`inUse`, the tenant's slots when the request took its own, at most half
   * `limit`) and the slot is within the limit; false when it must go back now.
   */
  keep({ lease, leaseSetAt }: KeptSlot, inUse: number, limit: number): boolean {
    const allotment = this.tenants.get(lease.tenantId);
    if (!allotment || !this.enabled || inUse * 2 > limit || lease.slot > limit) return false;
    if (this.now() - leaseSetAt > this.options.reusableMs) return false;
    allotment.idle.push({ lease, idleSince: this.now(), leaseSetAt });
    return true;
  }

  /** Idle slots whose leases were just set again (renewed) at `setAt`. */
  renewed(leases: readonly SlotLease[], setAt: number): void {
    const holders = new Set(leases.map((lease) => lease.holder));
    for (const allotment of this.tenants.values()) {
      for (const slot of allotment.idle) if (holders.has(slot.lease.holder)) slot.leaseSetAt = setAt;
    }
  }

  /** Every idle slot held here (to renew their leases). */
  idleLeases(): SlotLease[] {
    return [...this.tenants.values()].flatMap((allotment) => allotment.idle.map((slot) => slot.lease));
  }

  /**
   * What has sat unused too long: slots idle for `idleMs` or past reuse go back. A tenant with
   * nothing left here and an old view is forgotten (set-aside requests of an ended window lapse).
   */
  sweep(): SlotLease[] {
    const now = this.now();
    const leases: SlotLease[] = [];
    for (const [tenantId, allotment] of this.tenants) {
      const keep = (slot: IdleSlot) => now - slot.idleSince < this.options.idleMs && now - slot.leaseSetAt <= this.options.reusableMs;
      leases.push(...allotment.idle.filter((slot) => !keep(slot)).map((slot) => slot.lease));
      allotment.idle = allotment.idle.filter(keep);
      const windowOpen = now < allotment.view.windowEndsAt;
      const stale = now - allotment.seenAt > Math.max(this.options.accountMaxAgeMs, this.options.idleMs);
      if (allotment.idle.length === 0 && stale && (!windowOpen || allotment.reserved === 0)) this.tenants.delete(tenantId);
    }
    // A statement outlives this by far less: it is never slower than the pool's connection timeout.
    for (const [tenantId, at] of this.givenBackAt) if (now - at > 60_000) this.givenBackAt.delete(tenantId);
    return leases;
  }

  /** Everything held here for the tenant (another replica is about to refuse it), or for every tenant. */
  giveBack(tenantId?: string): GivenBack {
    const now = this.now();
    const given: GivenBack = { leases: [], requests: [] };
    const entries = tenantId === undefined ? [...this.tenants] : [[tenantId, this.tenants.get(tenantId)] as const];
    for (const [id, allotment] of entries) {
      if (tenantId !== undefined) this.givenBackAt.set(id, now);
      if (!allotment) continue;
      given.leases.push(...allotment.idle.map((slot) => slot.lease));
      allotment.idle = [];
      if (allotment.reserved > 0 && now < allotment.view.windowEndsAt) {
        given.requests.push({ tenantId: id, windowStartMs: allotment.view.windowStartMs, requests: allotment.reserved });
      }
      allotment.reserved = 0;
    }
    return given;
  }
}
