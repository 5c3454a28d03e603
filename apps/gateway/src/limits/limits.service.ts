import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { AccountsRepository } from '../tenants/accounts.repository';
import { Histogram, Registry } from 'prom-client';
import { AdmissionRepository, AdmissionSnapshot, BatchAdmission } from './admission.repository';
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

/** What {@link LimitsService.admit} learnt, and the slot it took when one was free. */
export interface Admission extends AdmissionSnapshot {
  held?: HeldSlot;
}

/** A held slot and the tenant's slots in use right after taking it. */
export interface HeldSlot {
  lease: SlotLease;
  inUse: number;
}

/**
 * The Fetch endpoint's limits, enforced in Postgres so that they hold across every gateway
 * replica: a per-tenant rate window (`AUTH008`) and per-tenant concurrency slots (`AUTH006`).
 */
@Injectable()
export class LimitsService implements OnApplicationShutdown {
  /** A slot's lease outlives the longest request: deadline, the gateway's margin, the RPC's silence timeout, slack. */
  private readonly slotLeaseMs: number;
  private readonly pendingReleases: PendingReleases;
  /** Slots this replica holds, by holder: what a shutdown gives back when their calls cannot end first. */
  private readonly held = new Map<string, SlotLease>();
  /** The same, counted by tenant (head starts weigh them). */
  private readonly heldByTenant = new Map<string, number>();
  private readonly admissions: KeyedBatches<string, string, Admission>;

  constructor(
    private readonly admission: AdmissionRepository,
    private readonly slots: ConcurrencySlotsRepository,
    private readonly accounts: AccountsRepository,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) logger: Logger,
    registry: Registry,
  ) {
    this.slotLeaseMs = config.FETCH_DEADLINE_MS + config.FETCH_DEADLINE_MARGIN_MS + config.FETCH_RPC_SILENCE_TIMEOUT_MS + 30_000;
    this.pendingReleases = new PendingReleases({
      writeAlone: (leases) => this.slots.releaseMany(leases),
      lingerMs: config.FETCH_RELEASE_LINGER_MS,
      leaseMs: this.slotLeaseMs,
      onWriteFailed: (error) => logger.warn({ err: error }, 'could not release concurrency slots; retrying'),
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
  }

  /**
   * Counts the request in the tenant's rate window, reads its account (the billing period renewed
   * first if it has ended) and its slots in use, and takes a free slot when the window allows the
   * request: one round trip for what a request that goes on needs. Does not refuse (see
   * {@link assertRate}); a request refused later must {@link release} `held`. A request whose
   * worker call started already (`workerDone` given) lingers up to `FETCH_ADMISSION_LINGER_MS` for
   * others of its tenant to share the statement, or until its worker answered; one that waits for
   * its admission takes those lingering along at once.
   */
  admit(tenantId: string, options: { workerDone?: Promise<unknown> } = {}): Promise<Admission> {
    return this.admissions.add(tenantId, randomUUID(), options.workerDone);
  }

  /** One statement for `holders`, the tenant's requests in the order they came. */
  private async admitTogether(tenantId: string, holders: string[]): Promise<Admission[]> {
    // Releases waiting to be written ride on this statement.
    const releasing = this.pendingReleases.take(RELEASES_PER_ADMISSION);
    let batch: BatchAdmission | undefined;
    try {
      batch = await this.admission.countRequestsAndRead(tenantId, holders, this.slotLeaseMs, releasing.leases);
    } catch (error) {
      releasing.failed();
      throw error;
    }
    releasing.written();
    if (!batch) throw new Error(`Tenant ${tenantId} of an authenticated key does not exist`);
    let claimed = 0;
    const admissions = holders.map((holder, i): Admission => {
      const slot = batch.slots.get(holder);
      // Slots held by others: those before the statement and those it gave earlier holders.
      const slotsInUse = batch.slotsInUse + claimed;
      const snapshot: AdmissionSnapshot = {
        account: batch.account,
        requestsThisMinute: batch.requestsThisMinute - holders.length + i + 1,
        windowResetsInMs: batch.windowResetsInMs,
        slotsInUse,
      };
      if (slot === undefined) return snapshot;
      claimed += 1;
      return { ...snapshot, held: this.holding({ tenantId, slot, holder }, slotsInUse + 1) };
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
    const holder = randomUUID();
    for (let attempt = 0; attempt <= SLOT_RACE_RETRIES; attempt++) {
      const taken = await this.slots.tryAcquire(tenantId, limit, holder, this.slotLeaseMs);
      if (taken) return this.holding({ tenantId, slot: taken.slot, holder }, taken.inUse);
      // Nothing taken: either every slot is held, or another replica won the slot we chose.
      if ((await this.slots.inUse(tenantId, limit)) >= limit) break;
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
   * Frees the slot with the next admission statement of this replica, or alone after
   * `FETCH_RELEASE_LINGER_MS`: for a slot whose release nobody waits for. Resolves once written.
   */
  async releaseSoon(lease: SlotLease): Promise<void> {
    if (!this.forget(lease)) return;
    await this.pendingReleases.add(lease);
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
    for (const lease of this.held.values()) void this.pendingReleases.add(lease);
    this.held.clear();
    this.heldByTenant.clear();
    await this.pendingReleases.flush();
  }

  private holding(lease: SlotLease, inUse: number): HeldSlot {
    this.held.set(lease.holder, lease);
    addTo(this.heldByTenant, lease.tenantId, 1);
    return { lease, inUse };
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
