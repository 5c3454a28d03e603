import type { SlotLease } from './concurrency-slots.repository';

/** Releases taken for one statement: tell the queue how the statement went. */
export interface ReleaseBatch {
  leases: SlotLease[];
  written(): void;
  /** The statement failed: its releases wait for the next one. */
  failed(): void;
}

/**
 * Slot releases that need not be written before an answer (a roomy tenant's; see FetchService),
 * held up to `lingerMs` so that they ride on the next admission statement of this replica instead
 * of costing a statement each: under load a release then costs no round trip of its own. Without
 * an admission within `lingerMs`, one statement writes every release that waits. A release whose
 * statement failed waits for the next one; one never written frees its slot when its lease passes.
 */
export class PendingReleases {
  private pending: Array<{ lease: SlotLease; written: () => void }> = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly writeAlone: (leases: SlotLease[]) => Promise<void>,
    private readonly lingerMs: number,
    private readonly onWriteFailed: (error: unknown) => void,
  ) {}

  /** Queues the release of `lease`; resolves once it is written. */
  add(lease: SlotLease): Promise<void> {
    return new Promise((written) => {
      this.pending.push({ lease, written });
      if (this.lingerMs <= 0) void this.flush();
      else this.arm();
    });
  }

  /** Takes every waiting release for a statement about to run. */
  take(): ReleaseBatch {
    const taken = this.pending;
    this.pending = [];
    return {
      leases: taken.map((entry) => entry.lease),
      written: () => {
        for (const entry of taken) entry.written();
      },
      failed: () => {
        this.pending.push(...taken);
        if (this.pending.length > 0) this.arm();
      },
    };
  }

  /** Writes every waiting release now, in one statement (on a timer, and at shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = this.take();
    if (batch.leases.length === 0) return;
    try {
      await this.writeAlone(batch.leases);
      batch.written();
    } catch (error) {
      batch.failed();
      this.onWriteFailed(error);
    }
  }

  get size(): number {
    return this.pending.length;
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), this.lingerMs);
    // The server keeps the process alive while there is work; this timer alone must not.
    this.timer.unref();
  }
}
