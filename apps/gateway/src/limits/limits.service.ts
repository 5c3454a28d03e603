import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { AccountsRepository } from '../tenants/accounts.repository';
import { Counter, Histogram, Registry } from 'prom-client';
import { AdmissionRepository, AdmissionSnapshot, BatchAdmission } from './admission.repository';
import { Allotments, type GivenBack, type KeptSlot } from './allotments';
import { LimitPeers, type Reclaimed } from './limit-peers';
import { KeyedBatches } from './keyed-batches';
import { ConcurrencySlotsRepository, SlotLease } from './concurrency-slots.repository';
import { addTo } from './counts';
import { LimitError, LimitErrorCode } from './limits.errors';
import { PendingReleases } from './pending-releases';

/** How often a lost race for a free slot is retried before the request counts as over the limit. */
const SLOT_RACE_RETRIES = 3;

/** Most waiting releases one admission statement carries; more wait for the next, or their own statement. */
const RELEASES_PER_ADMISSION = 32;

/** Most requests of a tenant one admission statement admits. */
const REQUESTS_PER_ADMISSION = 32;

/** How often the leases of slots this replica holds are set again, in ms: well inside their slack past the longest request. */
const RENEW_EVERY_MS = 10_000;
/** The slack of a slot's lease past the longest request (see `slotLeaseMs`). */
const LEASE_SLACK_MS = 30_000;

/** What {@link LimitsService.admit} learnt, and the slot it took when one was free. */
export interface Admission extends AdmissionSnapshot {
  held?: HeldSlot;
}

/** An admission by a statement, which knows the rate window it counted in. */
interface StatementAdmission extends Admission {
  /** Start of the window, ms since the epoch. */
  windowStartMs: number;
}

/** A held slot and the tenant's slots in use right after taking it. */
export interface HeldSlot {
  lease: SlotLease;
  inUse: number;
}

/** What a request asks of its account, for an admission here (see Allotments). */
export interface AdmissionNeeds {
  /** A request already at its worker may wait for others of its tenant to share its statement. */
  workerDone?: Promise<unknown>;
  /** Credits the request costs at least; without it, the request is admitted by a statement. */
  credits?: number;
  /** Credits this replica billed the tenant but has not written yet. */
  pendingCredits?: number;
}

/**
 * The Fetch endpoint's limits, enforced in Postgres so that they hold across every gateway
 * replica: a per-tenant rate window (`AUTH008`) and per-tenant concurrency slots (`AUTH006`). A
 * busy tenant far from its limits is admitted from what this replica holds of them between
 * statements ({@link Allotments}), without a round trip of its own.
 */
@Injectable()
export class LimitsService implements OnModuleInit, OnApplicationShutdown {
  /** A slot's lease outlives the longest request: deadline, the gateway's margin, the RPC's silence timeout, slack. */
  private readonly slotLeaseMs: number;
  private readonly pendingReleases: PendingReleases;
  /** Slots this replica handed to requests under way, by holder: what a shutdown gives back when their calls cannot end first. */
  private readonly held = new Map<string, KeptSlot>();
  private readonly allotments: Allotments;
  private readonly admittedBy: Counter<'by'>;
  private renewTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  /** The same, counted by tenant (head starts weigh them). */
  private readonly heldByTenant = new Map<string, number>();
  private readonly admissions: KeyedBatches<string, string, StatementAdmission>;

  constructor(
    private readonly admission: AdmissionRepository,
    private readonly slots: ConcurrencySlotsRepository,
    private readonly accounts: AccountsRepository,
    private readonly peers: LimitPeers,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    registry: Registry,
  ) {
    this.slotLeaseMs = config.FETCH_DEADLINE_MS + config.FETCH_DEADLINE_MARGIN_MS + config.FETCH_RPC_SILENCE_TIMEOUT_MS + 30_000;
    this.pendingReleases = new PendingReleases({
      writeAlone: (leases) => this.slots.releaseMany(leases),
      lingerMs: config.FETCH_RELEASE_LINGER_MS,
      leaseMs: this.slotLeaseMs,
      onWriteFailed: (error) => this.logger.warn({ err: error }, 'could not release concurrency slots; retrying'),
    });
    const batchSize = new Histogram({
      name: 'trawl_fetch_admission_batch_requests',
      help: 'Fetch requests of one tenant admitted by one statement',
      buckets: [1, 2, 4, 8, 16, 32],
      registers: [registry],
    });
    this.admissions = new KeyedBatches({
      run: (tenantId, holders) => this.admitTogether(tenantId, holders),
      lingerMs: config.FETCH_ADMISSION_LINGER_MS,
      maxBatch: REQUESTS_PER_ADMISSION,
      onBatch: (size) => batchSize.observe(size),
    });
    this.allotments = new Allotments({
      accountMaxAgeMs: config.FETCH_ALLOTMENT_MS,
      idleMs: config.FETCH_ALLOTMENT_IDLE_MS,
      reusableMs: LEASE_SLACK_MS - RENEW_EVERY_MS,
      maxRequests: config.FETCH_ALLOTMENT_MAX_REQUESTS,
    });
    this.admittedBy = new Counter({
      name: 'trawl_fetch_admissions_total',
      help: "Fetch requests admitted, by what admitted them: a Postgres statement, or this replica's allotment of the tenant's limits",
      labelNames: ['by'],
      registers: [registry],
    });
  }

  onModuleInit(): void {
    this.peers.serve((tenantId) => this.giveBackHere(tenantId));
    if (!this.allotments.enabled) return;
    this.renewTimer = setInterval(() => void this.renewLeases(), RENEW_EVERY_MS).unref();
    this.sweepTimer = setInterval(() => this.sweep(), Math.max(50, this.config.FETCH_ALLOTMENT_IDLE_MS / 2)).unref();
  }

  /**
   * Counts the request in the tenant's rate window, reads its account (the billing period renewed
   * first if it has ended) and its slots in use, and takes a free slot when the window allows the
   * request: one round trip for what a request that goes on needs, or none when this replica's
   * allotment of a tenant far from its limits covers it. Does not refuse (see {@link assertRate});
   * a request refused later must {@link release} `held`. A request whose worker call started
   * already (`workerDone` given) lingers up to `FETCH_ADMISSION_LINGER_MS` for others of its tenant
   * to share the statement, or until its worker answered; one that waits for its admission takes
   * those lingering along at once. Over the rate, the other replicas are asked for what they set
   * aside of the window first, and the request counted again if they gave any back.
   */
  async admit(tenantId: string, needs: AdmissionNeeds = {}): Promise<Admission> {
    const local = this.admitHere(tenantId, needs);
    if (local) return local;
    const admission = await this.admissions.add(tenantId, randomUUID(), needs.workerDone);
    if (admission.requestsThisMinute <= admission.account.rateLimitPerMinute) return admission;
    const reclaimed = await this.reclaim(tenantId);
    if (reclaimed.requests === 0) return admission;
    // Its refused count goes back with the others' unused ones; then it is counted again.
    await this.admission.returnRequests([{ tenantId, windowStartMs: admission.windowStartMs, requests: 1 }]);
    return this.admissions.add(tenantId, randomUUID());
  }

  private admitHere(tenantId: string, needs: AdmissionNeeds): Admission | undefined {
    if (needs.credits === undefined) return undefined;
    const local = this.allotments.take(tenantId, {
      credits: needs.credits,
      pendingCredits: needs.pendingCredits ?? 0,
      slotsHeldHere: this.slotsHeldHere(tenantId),
    });
    if (!local) return undefined;
    this.admittedBy.inc({ by: 'allotment' });
    const { slot, ...admission } = local;
    return slot ? { ...admission, held: this.holding(slot, local.slotsInUse + 1) } : admission;
  }

  /** One statement for `holders`, the tenant's requests in the order they came. */
  private async admitTogether(tenantId: string, holders: string[]): Promise<StatementAdmission[]> {
    // The first holders take slots kept here (a lowered limit is checked below); the statement claims for the rest.
    const kept: KeptSlot[] = [];
    for (let slot = this.allotments.takeIdle(tenantId, Infinity); slot; slot = this.allotments.takeIdle(tenantId, Infinity)) {
      kept.push(slot);
      if (kept.length === holders.length) break;
    }
    const claiming = holders.slice(kept.length);
    // Releases waiting to be written ride on this statement.
    const releasing = this.pendingReleases.take(RELEASES_PER_ADMISSION);
    const startedAt = Date.now();
    const heldHereBefore = this.slotsHeldInPostgresHere(tenantId) + kept.length;
    let batch: BatchAdmission | undefined;
    try {
      batch = await this.admission.countRequestsAndRead(
        tenantId,
        claiming,
        this.slotLeaseMs,
        releasing.leases,
        this.allotments.wanted(tenantId),
        kept.length,
      );
    } catch (error) {
      releasing.failed();
      for (const { lease } of kept) void this.pendingReleases.add(lease);
      throw error;
    }
    releasing.written();
    if (!batch) throw new Error(`Tenant ${tenantId} of an authenticated key does not exist`);
    this.admittedBy.inc({ by: 'statement' }, holders.length);
    this.allotments.learnt(
      tenantId,
      {
        account: batch.account,
        windowStartMs: batch.windowStartMs,
        windowEndsAt: startedAt + batch.windowResetsInMs,
        requestsThisMinute: batch.requestsThisMinute,
        granted: batch.granted,
        othersInUse: Math.max(0, batch.slotsInUse - heldHereBefore),
      },
      holders.length,
      startedAt,
    );
    const counted = batch.requestsThisMinute - batch.granted;
    let claimed = 0;
    const admissions = holders.map((holder, i): StatementAdmission => {
      const snapshot: StatementAdmission = {
        account: batch.account,
        requestsThisMinute: counted - holders.length + i + 1,
        windowStartMs: batch.windowStartMs,
        windowResetsInMs: batch.windowResetsInMs,
        // Slots held before the statement (kept ones among them) and those it gave earlier holders.
        slotsInUse: batch.slotsInUse + claimed,
      };
      const keptSlot = kept[i];
      if (keptSlot) {
        if (keptSlot.lease.slot <= batch.account.concurrency) return { ...snapshot, held: this.holding(keptSlot, snapshot.slotsInUse) };
        void this.pendingReleases.add(keptSlot.lease); // above a lowered limit
        return snapshot;
      }
      const slot = batch.slots.get(holder);
      if (slot === undefined) return snapshot;
      claimed += 1;
      return { ...snapshot, held: this.holding({ lease: { tenantId, slot, holder }, leaseSetAt: startedAt }, snapshot.slotsInUse + 1) };
    });
    if (batch.account.periodEndsAt.getTime() <= Date.now()) {
      await this.accounts.renewPeriodIfEnded(tenantId, batch.account.periodEndsAt);
      const account = await this.accounts.find(tenantId);
      if (account) return admissions.map((admission) => ({ ...admission, account }));
    }
    return admissions;
  }

  /** @throws LimitError `AUTH008` with `Retry-After` (seconds to the next window) when the minute's requests are spent. */
  assertRate(snapshot: AdmissionSnapshot): void {
    const limit = snapshot.account.rateLimitPerMinute;
    if (snapshot.requestsThisMinute <= limit) return;
    const retryAfter = Math.max(1, Math.ceil(snapshot.windowResetsInMs / 1000));
    throw new LimitError(LimitErrorCode.RateLimited, `Your account may send ${limit} requests per minute; retry in ${retryAfter} s.`, {
      'retry-after': String(retryAfter),
    });
  }

  /**
   * Takes one of the tenant's `limit` concurrency slots (when admission found none free, or lost
   * the race for the one it chose).
   * @throws LimitError `AUTH006` when every slot is held.
   */
  async acquireSlot(tenantId: string, limit: number): Promise<HeldSlot> {
    const idle = this.allotments.takeIdle(tenantId, limit);
    if (idle) return this.holding(idle, this.slotsHeldHere(tenantId) + 1);
    const holder = randomUUID();
    for (let reclaimed = false; ; reclaimed = true) {
      for (let attempt = 0; attempt <= SLOT_RACE_RETRIES; attempt++) {
        const setAt = Date.now();
        const taken = await this.slots.tryAcquire(tenantId, limit, holder, this.slotLeaseMs);
        if (taken) return this.holding({ lease: { tenantId, slot: taken.slot, holder }, leaseSetAt: setAt }, taken.inUse);
        // Nothing taken: either every slot is held, or another replica won the slot we chose.
        if ((await this.slots.inUse(tenantId, limit)) >= limit) break;
      }
      // Every slot is held: some may sit idle at a replica (this one too), which gives them back first.
      if (reclaimed || (await this.reclaim(tenantId)).slots === 0) break;
    }
    throw new LimitError(
      LimitErrorCode.ConcurrencyFull,
      `Your account runs ${limit} concurrent requests, its limit; retry when one ends. ` +
        'A request you cancelled keeps its slot until the server stops working on it.',
    );
  }

  /** Frees the slot now: one statement of its own. */
  async release(lease: SlotLease): Promise<void> {
    if (!this.forget(lease)) return;
    await this.slots.release(lease);
  }

  /**
   * For a slot whose release nobody waits for (a roomy tenant's, `held.inUse` at most half
   * `limit`): keeps it for the tenant's next request here while this replica holds an allotment of
   * the tenant, or frees it with the next admission statement of this replica, or alone after
   * `FETCH_RELEASE_LINGER_MS`. Resolves once kept or written.
   */
  async releaseSoon(held: HeldSlot, limit: number): Promise<void> {
    const kept = this.held.get(held.lease.holder);
    if (!kept || !this.forget(held.lease)) return;
    if (this.allotments.keep(kept, held.inUse, limit)) return;
    await this.pendingReleases.add(held.lease);
  }

  /** Slots of the tenant this replica holds now (taken and not yet given back). */
  slotsHeldHere(tenantId: string): number {
    return this.heldByTenant.get(tenantId) ?? 0;
  }

  /**
   * After the HTTP server drained and before the pool closes (the core module, global, shuts down
   * after every feature module): writes the waiting releases, and gives back the slots of calls
   * still under way (a client that left, a refused head start winding down). Their workers may
   * still be at them, but this replica will not be there to release them: held, they would count
   * against their tenants for a whole lease (minutes) through a rollout.
   */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.renewTimer);
    clearInterval(this.sweepTimer);
    for (const { lease } of this.held.values()) void this.pendingReleases.add(lease);
    this.held.clear();
    this.heldByTenant.clear();
    await this.writeGivenBack(this.allotments.giveBack()).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'could not give back idle limits at shutdown; their leases and window free them'),
    );
    await this.pendingReleases.flush();
  }

  /**
   * The operator changed the tenant's account (plan, limits, suspension): every replica gives back
   * what it holds of the tenant, so that its next request is admitted by a statement that reads
   * the account as it is now. Resolves once the replicas answered (or did not within the wait).
   */
  async accountChanged(tenantId: string): Promise<void> {
    await this.reclaim(tenantId);
  }

  /** Asks every replica (this one too) for what it holds idle of the tenant. */
  private async reclaim(tenantId: string): Promise<Reclaimed> {
    if (!this.allotments.enabled) return { slots: 0, requests: 0 };
    return this.peers.ask(tenantId);
  }

  /** Gives back, written, what this replica holds idle of the tenant (another replica, or this one, is about to refuse it). */
  private async giveBackHere(tenantId: string): Promise<Reclaimed> {
    const given = this.allotments.giveBack(tenantId);
    await this.writeGivenBack(given);
    return { slots: given.leases.length, requests: given.requests.reduce((sum, unused) => sum + unused.requests, 0) };
  }

  private async writeGivenBack(given: GivenBack): Promise<void> {
    await Promise.all([
      given.leases.length > 0 ? this.slots.releaseMany(given.leases) : undefined,
      this.admission.returnRequests(given.requests),
    ]);
  }

  /** Idle slots that sat too long go back with the next statement (or alone after the linger). */
  private sweep(): void {
    for (const lease of this.allotments.sweep()) void this.pendingReleases.add(lease);
  }

  /** Sets the leases of every slot this replica holds again, so that a slot kept here outlasts any request it is handed to. */
  private async renewLeases(): Promise<void> {
    const setAt = Date.now();
    const leases = [...[...this.held.values()].map((held) => held.lease), ...this.allotments.idleLeases()];
    try {
      const renewed = await this.slots.renew(leases, this.slotLeaseMs);
      for (const lease of renewed) {
        const held = this.held.get(lease.holder);
        if (held) held.leaseSetAt = setAt;
      }
      this.allotments.renewed(renewed, setAt);
    } catch (error) {
      // Unrenewed, idle slots stop being handed out once past their slack (Allotments.reusableMs) and go back.
      this.logger.warn({ err: error }, 'could not renew the leases of held concurrency slots');
    }
  }

  /** Slots of the tenant held in Postgres by this replica: under way and idle. */
  private slotsHeldInPostgresHere(tenantId: string): number {
    return this.slotsHeldHere(tenantId) + this.allotments.idleCount(tenantId);
  }

  private holding(held: KeptSlot, inUse: number): HeldSlot {
    this.held.set(held.lease.holder, held);
    addTo(this.heldByTenant, held.lease.tenantId, 1);
    return { lease: held.lease, inUse };
  }

  /** Stops counting the slot as held here; false when a shutdown already gave it back. */
  private forget(lease: SlotLease): boolean {
    if (!this.held.delete(lease.holder)) return false;
    addTo(this.heldByTenant, lease.tenantId, -1);
    return true;
  }

  /** Slots held now by the tenant. */
  inUse(tenantId: string, limit: number): Promise<number> {
    return this.slots.inUse(tenantId, limit);
  }
}
