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

/** How long a host known to be ungoverned is taken at its word before its record is read again. */
const UNGOVERNED_FRESH_MS = 1_000;
/** Polls for a free slot start this far apart and double up to the cap (a local release wakes at once). */
const FIRST_POLL_MS = 5;
const POLL_CAP_MS = 100;
/** Hosts whose last-read record this worker keeps. */
const MAX_CACHED_HOSTS = 10_000;
/** A permit outlives its load by this much before another worker may take its slot. */
const LAPSE_MARGIN_MS = 5_000;
/** Compare-and-set rounds before a release gives up (its permit then lapses on its own). */
const RELEASE_ROUNDS = 20;
/** Busy answers for a full host tell the caller to come back after this long. */
const FULL_HOST_RETRY_MS = 1_000;
const WARN_EVERY_MS = 30_000;

interface Cached extends HostRecord {
  readAt: number;
}

/**
 * The per-host gate of every worker replica, agreeing through one shared record per host
 * (`HostRecords`, a NATS KV bucket) written with compare-and-set: the limits hold across replicas
 * and tenants, and a dead worker's permits lapse with its loads' deadlines. Within one worker, the
 * loads waiting for a host queue in order and only the first of them polls the record.
 *
 * Without limits a load costs nothing on entry but a read of its host's record at most once a second
 * per worker (to wait out a pause), and a write only when the host answers 429 or 503. When the record
 * cannot be read or written, loads go ahead ungoverned: a NATS outage must not stop the fleet.
 */
export class SharedHostGate implements HostGate {
  private readonly cache = new Map<string, Cached>();
  private readonly lanes = new Map<string, Promise<unknown>>();
  private readonly wakers = new Map<string, Set<() => void>>();
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
    const admitted = await this.inLane(host, () => this.admitted(host, entry));
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
      pausedUntil = (await this.recent(host, UNGOVERNED_FRESH_MS)).state.pausedUntil;
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

  /** A permit recorded in the host's record; undefined when the record failed (the load goes ungoverned). */
  private async admitted(host: string, entry: HostEntry): Promise<{ id: string; startAt: number; reason?: WaitReason } | undefined> {
    const id = randomBytes(6).toString('base64url');
    let pollMs = FIRST_POLL_MS;
    let waitedFor: WaitReason | undefined;
    for (let fresh = false; ; ) {
      entry.signal.throwIfAborted();
      let record: Cached;
      try {
        // The cached revision is tried first: when this worker wrote last, one round trip is enough.
        record = fresh ? await this.recent(host, 0) : await this.recent(host, UNGOVERNED_FRESH_MS);
      } catch (error) {
        this.storeFailed(error);
        return undefined;
      }
      const now = Date.now();
      const admission = admit(record.state, this.settings.limits, now, { id, lapsesAt: now + entry.runMs + LAPSE_MARGIN_MS }, entry.latestStart);
      if (admission.admitted) {
        let revision: number | undefined;
        try {
          revision = await this.records.write(host, admission.state, record.revision);
        } catch (error) {
          this.storeFailed(error);
          return undefined;
        }
        if (revision === undefined) {
          fresh = true;
          continue;
        }
        this.remember(host, admission.state, revision);
        return { id, startAt: admission.startAt, reason: admission.reason ?? waitedFor };
      }
      if (!fresh) {
        // Judged on a cached record: read the real one before waiting or refusing.
        fresh = true;
        continue;
      }
      waitedFor = admission.reason;
      if (admission.retryAt !== undefined) throw this.deferred(host, admission.reason, admission.retryAt - now);
      if (now + pollMs > entry.latestStart) throw this.deferred(host, admission.reason, FULL_HOST_RETRY_MS);
      await this.slotFreed(host, pollMs, entry.signal);
      pollMs = Math.min(pollMs * 2, POLL_CAP_MS);
    }
  }

  private async release(host: string, permitId: string | undefined, outcome: LoadOutcome): Promise<void> {
    if (this.settings.backoff.enabled && asksToSlowDown(outcome)) this.metrics.backoffs.inc({ status: String(outcome.status) });
    try {
      for (let round = 0, fresh = false; round < RELEASE_ROUNDS; round++) {
        const record = await this.recent(host, fresh ? 0 : UNGOVERNED_FRESH_MS);
        const next = release(record.state, permitId, outcome, Date.now(), this.settings.backoff);
        if (!next.changed) return;
        const revision = await this.records.write(host, next.state, record.revision);
        if (revision !== undefined) {
          this.remember(host, next.state, revision);
          return;
        }
        fresh = true;
      }
    } catch (error) {
      this.storeFailed(error);
    } finally {
      for (const wake of this.wakers.get(host) ?? []) wake();
    }
  }

  private freePermit(host: string): HostPermit {
    return {
      release: (outcome) => (this.settings.backoff.enabled && asksToSlowDown(outcome) ? this.release(host, undefined, outcome) : Promise.resolve()),
    };
  }

  /** The host's record, read again when the cached one is older than `maxAgeMs`. */
  private async recent(host: string, maxAgeMs: number): Promise<Cached> {
    const cached = this.cache.get(host);
    if (cached && Date.now() - cached.readAt <= maxAgeMs && maxAgeMs > 0) return cached;
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

  /** Runs `work` after every earlier admission of `host` on this worker: one poller per host, in order. */
  private async inLane<T>(host: string, work: () => Promise<T>): Promise<T> {
    const previous = this.lanes.get(host) ?? Promise.resolve();
    const mine = previous.catch(() => undefined).then(work);
    const tail = mine.catch(() => undefined);
    this.lanes.set(host, tail);
    try {
      return await mine;
    } finally {
      if (this.lanes.get(host) === tail) this.lanes.delete(host);
    }
  }

  /** Resolves after `ms`, or sooner when a load of `host` on this worker ends. */
  private async slotFreed(host: string, ms: number, signal: AbortSignal): Promise<void> {
    const wakers = this.wakers.get(host) ?? new Set<() => void>();
    this.wakers.set(host, wakers);
    const wakeUp = new AbortController();
    const wake = (): void => wakeUp.abort();
    wakers.add(wake);
    try {
      await sleep(ms, undefined, { signal: AbortSignal.any([signal, wakeUp.signal]) });
    } catch {
      signal.throwIfAborted();
    } finally {
      wakers.delete(wake);
      if (wakers.size === 0) this.wakers.delete(host);
    }
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

/** The gate of an installation without per-host limits or back-off: every load goes at once. */
export const OPEN_HOST_GATE: HostGate = {
  enter: () => Promise.resolve({ release: () => Promise.resolve() }),
};
