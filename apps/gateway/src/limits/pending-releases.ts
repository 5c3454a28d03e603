import type { SlotLease } from './concurrency-slots.repository';

/** Releases taken for one statement: tell the queue how the statement went. */
export interface ReleaseBatch {
  leases: SlotLease[];
  written(): void;
  /** The statement failed: its releases wait for the next one. */
  failed(): void;
}

export interface PendingReleasesOptions {
  /** Writes releases in a statement of their own. */
  writeAlone: (leases: SlotLease[]) => Promise<void>;
  /** How long a release waits for an admission statement to ride on; 0 writes each at once. */
  lingerMs: number;
  /** A release older than this is dropped unwritten: its lease has passed, its slot is free anyway. */
  leaseMs: number;
  /** Longest wait between retries while writes fail (they back off from `lingerMs`). */
  maxRetryMs?: number;
  onWriteFailed: (error: unknown) => void;
  now?: () => number;
}

interface Waiting {
  lease: SlotLease;
  queuedAt: number;
  written: () => void;
}

/**
 * Slot releases that need not be written before an answer (a roomy tenant's; see FetchService),
 * held up to `lingerMs` so that they ride on the next admission statement of this replica instead
 * of costing a statement each: under load a release then costs no round trip of its own. Without
 * an admission within `lingerMs`, one statement writes every release that waits. A release whose
 * statement failed waits for the next one; while Postgres fails, retries back off up to
 * `maxRetryMs`, and a release not written within its lease is dropped (the lease freed its slot).
 */
export class PendingReleases {
  private pending: Waiting[] = [];
  private timer: NodeJS.Timeout | undefined;
  private failures = 0;
  /** The statement a flush is running, which a later flush (at shutdown) waits for. */
  private writing: Promise<void> | undefined;
  private readonly maxRetryMs: number;
  private readonly now: () => number;

  constructor(private readonly options: PendingReleasesOptions) {
    this.maxRetryMs = options.maxRetryMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  /** Queues the release of `lease`; resolves once it is written (or dropped when its lease passed). */
  add(lease: SlotLease): Promise<void> {
    return new Promise((written) => {
      this.pending.push({ lease, queuedAt: this.now(), written });
      // While writes fail, the backoff's timer decides when to try again, whatever the linger.
      if (this.options.lingerMs <= 0 && this.failures === 0) void this.flush();
      else this.arm(this.options.lingerMs);
    });
  }

  /**
   * Takes at most `max` waiting releases for a statement about to run: one client's admission
   * carries a few others' releases, not a backlog.
   */
  take(max = Number.POSITIVE_INFINITY): ReleaseBatch {
    this.dropExpired();
    const taken = this.pending.splice(0, max);
    return {
      leases: taken.map((entry) => entry.lease),
      written: () => {
        if (taken.length > 0) this.failures = 0;
        for (const entry of taken) entry.written();
      },
      failed: () => {
        this.pending.unshift(...taken);
        this.failures += 1;
        if (this.pending.length > 0) this.arm(this.retryDelay());
      },
    };
  }

  /**
   * Writes every waiting release now, in one statement (on a timer, and at shutdown); resolves once
   * that statement and any a previous flush still runs have ended.
   */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const earlier = this.writing;
    const batch = this.take();
    if (batch.leases.length > 0) {
      const writing = this.options.writeAlone(batch.leases).then(
        () => batch.written(),
        (error: unknown) => {
          batch.failed();
          this.options.onWriteFailed(error);
        },
      );
      this.writing = writing;
      void writing.finally(() => {
        if (this.writing === writing) this.writing = undefined;
      });
      await writing;
    }
    await earlier;
  }

  get size(): number {
    return this.pending.length;
  }

  private retryDelay(): number {
    const base = Math.max(1, this.options.lingerMs);
    return Math.min(this.maxRetryMs, base * 2 ** Math.min(this.failures, 20));
  }

  private dropExpired(): void {
    const oldest = this.now() - this.options.leaseMs;
    if (!this.pending.some((entry) => entry.queuedAt <= oldest)) return;
    const kept: Waiting[] = [];
    for (const entry of this.pending) {
      if (entry.queuedAt > oldest) kept.push(entry);
      else entry.written();
    }
    this.pending = kept;
  }

  private arm(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), delayMs);
    // The server keeps the process alive while there is work; this timer alone must not.
    this.timer.unref();
  }
}
