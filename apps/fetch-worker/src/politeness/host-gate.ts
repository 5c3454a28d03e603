import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@trawl/observability';
import type { HostRecord, HostRecords } from './host-records';
import {
  admit,
  asksToSlowDown,
  isLimited,
  release,
  type BackoffRules,
  type HostLimits,
  type HostState,
  type LoadOutcome,
  type WaitReason,
} from './host-state';
import { PolitenessError } from './politeness.errors';
import type { PolitenessMetrics } from './politeness.metrics';

/** A load's right to go to its host; released once with what the host answered. Never throws. */
export interface HostPermit {
  release(outcome: LoadOutcome): Promise<void>;
}

export interface HostEntry {
  /** The load starts no later than this (ms since the epoch), or is refused with PolitenessError. */
  latestStart: number;
  /** Longest the load runs once started, in ms: its permit lapses after it, should this worker die. */
  runMs: number;
  signal: AbortSignal;
}

/** Spaces the loads of each target host as the installation's per-host limits and back-off say. */
export interface HostGate {
  /**
   * Waits until `host` may take one more load.
   *
   * @throws PolitenessError when it cannot start by `entry.latestStart`; the signal's reason.
   */
  enter(host: string, entry: HostEntry): Promise<HostPermit>;
}

export interface SharedHostGateSettings {
  limits: HostLimits;
  backoff: BackoffRules;
}

/** How long a host's record read by this worker is taken at its word before it is read again. */
const RECORD_FRESH_MS = 1_000;
/** A blocked host's record is polled this far apart, doubling up to the cap (a local release wakes at once). */
const FIRST_POLL_MS = 5;
const POLL_CAP_MS = 100;
/** Hosts whose last-read record this worker keeps. */
const MAX_CACHED_HOSTS = 10_000;
/** A permit outlives its load by this much before another worker may take its slot. */
const LAPSE_MARGIN_MS = 5_000;
/** Busy answers for a full host tell the caller to come back after this long. */
const FULL_HOST_RETRY_MS = 1_000;
const WARN_EVERY_MS = 30_000;

interface Cached extends HostRecord {
  readAt: number;
}

interface Admitted {
  id: string;
  startAt: number;
  reason?: WaitReason;
}

/** A load waiting for its host on this worker. */
interface Waiter {
  id: string;
  entry: HostEntry;
  /** Why it waited in an earlier round, if it did: the reason its wait is counted under. */
  waitedFor?: WaitReason;
  /** Undefined: the record failed, the load goes ahead ungoverned. */
  resolve(admitted: Admitted | undefined): void;
  reject(error: unknown): void;
}

/** A load's end, waiting to be written into its host's record. */
interface PendingRelease {
  permitId?: string;
  outcome: LoadOutcome;
  done(): void;
}

/** What this worker has pending for one host: one writer drives it, one compare-and-set per round. */
interface Lane {
  waiters: Waiter[];
  releases: PendingRelease[];
  running: boolean;
  /** Ends the writer's nap early (a load of this host ended here). */
  wake?: () => void;
}

/**
 * The per-host gate of every worker replica, agreeing through one shared record per host
 * (`HostRecords`, a NATS KV bucket) written with compare-and-set: the limits hold across replicas
 * and tenants, and a dead worker's permits lapse with its loads' deadlines.
 *
 * Within one worker, each host has one writer: in a round it folds every load that ended and admits
 * every waiting load the limits allow, in order, with one write; a round trip is paid per round, not
 * per load. A blocked host's record is polled (5 ms doubling to 100 ms) or re-read at once when one of
 * its loads ends here.
 *
 * Without limits a load costs nothing on entry but a read of its host's record at most once a second
 * per worker (to wait out a pause), and a write only when the host answers 429 or 503. When the record
 * cannot be read or written, loads go ahead ungoverned: a NATS outage must not stop the fleet.
 */
export class SharedHostGate implements HostGate {
  private readonly cache = new Map<string, Cached>();
  private readonly lanes = new Map<string, Lane>();
  private lastWarnAt = 0;

  constructor(
    private readonly records: HostRecords,
    private readonly settings: SharedHostGateSettings,
    private readonly metrics: PolitenessMetrics,
    private readonly logger: Logger,
  ) {}

  async enter(host: string, entry: HostEntry): Promise<HostPermit> {
    const enteredAt = Date.now();
    if (!isLimited(this.settings.limits)) return this.afterPause(host, entry, enteredAt);
    const id = randomBytes(6).toString('base64url');
    const admitted = await new Promise<Admitted | undefined>((resolve, reject) => {
      this.laneOf(host).waiters.push({ id, entry, resolve, reject });
      this.drive(host);
    });
    if (admitted === undefined) return this.freePermit(host);
    if (admitted.startAt > Date.now()) {
      try {
        await sleep(admitted.startAt - Date.now(), undefined, { signal: entry.signal });
      } catch (error) {
        await this.release(host, admitted.id, {});
        throw entry.signal.reason ?? error;
      }
    }
    if (admitted.reason) this.metrics.waitSeconds.observe({ reason: admitted.reason }, (Date.now() - enteredAt) / 1000);
    return { release: (outcome) => this.release(host, admitted.id, outcome) };
  }

  /**
   * Without limits nothing is counted: a load only waits out its host's pause, as this worker last
   * read it (at most a second ago, or as it wrote it itself).
   */
  private async afterPause(host: string, entry: HostEntry, enteredAt: number): Promise<HostPermit> {
    let pausedUntil: number;
    try {
      pausedUntil = (await this.recent(host, RECORD_FRESH_MS)).state.pausedUntil;
    } catch (error) {
      this.storeFailed(error);
      return this.freePermit(host);
    }
    if (pausedUntil > enteredAt) {
      if (pausedUntil > entry.latestStart) throw this.deferred(host, 'backoff', pausedUntil - enteredAt);
      try {
        await sleep(pausedUntil - Date.now(), undefined, { signal: entry.signal });
      } catch (error) {
        throw entry.signal.reason ?? error;
      }
      this.metrics.waitSeconds.observe({ reason: 'backoff' }, (Date.now() - enteredAt) / 1000);
    }
    return this.freePermit(host);
  }

  /** Resolves once the load's end is in its host's record (or the record failed). Never throws. */
  private release(host: string, permitId: string | undefined, outcome: LoadOutcome): Promise<void> {
    if (this.settings.backoff.enabled && asksToSlowDown(outcome)) this.metrics.backoffs.inc({ status: String(outcome.status) });
    return new Promise<void>((done) => {
      const lane = this.laneOf(host);
      lane.releases.push({ permitId, outcome, done });
      lane.wake?.();
      this.drive(host);
    });
  }

  private freePermit(host: string): HostPermit {
    return {
      release: (outcome) =>
        this.settings.backoff.enabled && asksToSlowDown(outcome) ? this.release(host, undefined, outcome) : Promise.resolve(),
    };
  }

  private laneOf(host: string): Lane {
    let lane = this.lanes.get(host);
    if (!lane) this.lanes.set(host, (lane = { waiters: [], releases: [], running: false }));
    return lane;
  }

  /** Starts the host's writer unless it runs; it stops when nothing is pending. */
  private drive(host: string): void {
    const lane = this.laneOf(host);
    if (lane.running) return;
    lane.running = true;
    void this.rounds(host, lane).finally(() => {
      lane.running = false;
      if (lane.waiters.length > 0 || lane.releases.length > 0) this.drive(host);
      else if (this.lanes.get(host) === lane) this.lanes.delete(host);
    });
  }

  private async rounds(host: string, lane: Lane): Promise<void> {
    let fresh = false;
    let pollMs = FIRST_POLL_MS;
    while (lane.waiters.length > 0 || lane.releases.length > 0) {
      this.dropAborted(lane);
      let record: Cached;
      try {
        record = await this.recent(host, fresh ? 0 : RECORD_FRESH_MS);
      } catch (error) {
        this.failAll(lane, error);
        return;
      }
      const now = Date.now();
      const releases = lane.releases.splice(0);
      let state = record.state;
      let changed = false;
      for (const pending of releases) {
        const next = release(state, pending.permitId, pending.outcome, now, this.settings.backoff);
        state = next.state;
        changed ||= next.changed;
      }
      const admitted: [Waiter, Admitted][] = [];
      const refused: [Waiter, WaitReason, number][] = [];
      let blocked: WaitReason | undefined;
      for (const waiter of lane.waiters) {
        const { entry } = waiter;
        const admission = admit(
          state,
          this.settings.limits,
          now,
          { id: waiter.id, lapsesAt: now + entry.runMs + LAPSE_MARGIN_MS },
          entry.latestStart,
        );
        if (admission.admitted) {
          state = admission.state;
          admitted.push([waiter, { id: waiter.id, startAt: admission.startAt, reason: admission.reason ?? waiter.waitedFor }]);
        } else if (admission.retryAt !== undefined) {
          refused.push([waiter, admission.reason, admission.retryAt - now]);
        } else {
          // Every slot taken: this load and those behind it wait, in order.
          blocked = admission.reason;
          for (const behind of lane.waiters.slice(lane.waiters.indexOf(waiter))) behind.waitedFor ??= blocked;
          break;
        }
      }
      if (changed || admitted.length > 0) {
        let revision: number | undefined;
        try {
          revision = await this.records.write(host, state, record.revision);
        } catch (error) {
          for (const pending of releases) pending.done();
          this.failAll(lane, error);
          return;
        }
        if (revision === undefined) {
          // Another writer came first: nothing of this round holds; again on the record as it is.
          lane.releases.unshift(...releases);
          fresh = true;
          continue;
        }
        this.remember(host, state, revision);
      }
      for (const pending of releases) pending.done();
      for (const [waiter, admission] of admitted) {
        remove(lane.waiters, waiter);
        waiter.resolve(admission);
      }
      if (refused.length > 0 || (blocked && admitted.length === 0)) {
        if (!fresh) {
          // Judged on this worker's copy of the record: read the real one before refusing or waiting.
          fresh = true;
          continue;
        }
        for (const [waiter, reason, retryAfterMs] of refused) {
          remove(lane.waiters, waiter);
          waiter.reject(this.deferred(host, reason, retryAfterMs));
        }
      }
      if (blocked && admitted.length === 0 && lane.releases.length === 0) {
        const wakeAt = Date.now() + pollMs;
        for (const waiter of [...lane.waiters]) {
          if (waiter.entry.latestStart >= wakeAt) continue;
          remove(lane.waiters, waiter);
          waiter.reject(this.deferred(host, blocked, FULL_HOST_RETRY_MS));
        }
        await this.nap(lane, pollMs);
        pollMs = Math.min(pollMs * 2, POLL_CAP_MS);
        fresh = true;
        continue;
      }
      pollMs = FIRST_POLL_MS;
      fresh = false;
    }
  }

  /** Sleeps `ms`, or less when a load of the host ends on this worker. */
  private async nap(lane: Lane, ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      lane.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    lane.wake = undefined;
  }

  private dropAborted(lane: Lane): void {
    for (const waiter of [...lane.waiters]) {
      if (!waiter.entry.signal.aborted) continue;
      remove(lane.waiters, waiter);
      waiter.reject(waiter.entry.signal.reason);
    }
  }

  /** The record cannot be read or written: every pending load goes ahead ungoverned. */
  private failAll(lane: Lane, error: unknown): void {
    this.storeFailed(error);
    for (const pending of lane.releases.splice(0)) pending.done();
    for (const waiter of lane.waiters.splice(0)) waiter.resolve(undefined);
  }

  /** The host's record, read again when the cached one is older than `maxAgeMs` (0: always). */
  private async recent(host: string, maxAgeMs: number): Promise<Cached> {
    const cached = this.cache.get(host);
    if (cached && maxAgeMs > 0 && Date.now() - cached.readAt <= maxAgeMs) return cached;
    const record = await this.records.read(host);
    return this.remember(host, record.state, record.revision);
  }

  private remember(host: string, state: HostState, revision: number): Cached {
    const cached = { state, revision, readAt: Date.now() };
    this.cache.delete(host);
    this.cache.set(host, cached);
    if (this.cache.size > MAX_CACHED_HOSTS) this.cache.delete(this.cache.keys().next().value as string);
    return cached;
  }

  private deferred(host: string, reason: WaitReason, retryAfterMs: number): PolitenessError {
    this.metrics.deferred.inc({ reason });
    return new PolitenessError(host, reason, Math.max(0, retryAfterMs));
  }

  private storeFailed(error: unknown): void {
    this.metrics.storeErrors.inc();
    const now = Date.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.lastWarnAt = now;
    this.logger.warn({ err: error }, 'per-host politeness record unavailable; loads go ahead ungoverned');
  }
}

function remove<T>(list: T[], item: T): void {
  const at = list.indexOf(item);
  if (at >= 0) list.splice(at, 1);
}
