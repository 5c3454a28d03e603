import type { Sql } from '@trawl/persistence';
import { Charge, recordCharges } from './credit-ledger';

export interface ChargeBufferOptions {
  /**
   * Longest time a charge waits in memory before its ledger row is written, in ms. 0 writes each
   * charge at once, and `add` resolves only when its row is committed.
   */
  flushMs: number;
  /** Charges written in one statement at most (default 1,000); a full buffer is flushed at once. */
  maxBatch?: number;
  /** Told when a flush failed; the charges stay buffered and the next flush tries them again. */
  onFlushError?: (error: unknown, pending: number) => void;
}

/**
 * Writes ledger rows for charges that need not be committed before their request is answered
 * (Fetch): many requests share one statement, and with it one commit, instead of each waiting for
 * its own WAL flush. Trade-off, written down in docs/decisions/fetch-admission.md ("Fetch ledger rows are batched"): a process killed without
 * `close()` loses the charges of its last `flushMs` — requests answered and not billed, never
 * billed twice (each ledger row is unique by `ref`, so a flush retried after a failure or a commit
 * whose answer was lost bills nothing more).
 */
export class ChargeBuffer {
  private pending: Charge[] = [];
  /** Credits buffered or being written, by tenant: not in the ledger's totals until their commit. */
  private readonly unwritten = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private flushing?: Promise<void>;
  private closed = false;
  private readonly maxBatch: number;

  constructor(
    private readonly sql: Sql,
    private readonly options: ChargeBufferOptions,
  ) {
    this.maxBatch = options.maxBatch ?? 1_000;
  }

  /** Charges waiting to be written. */
  get size(): number {
    return this.pending.length;
  }

  /**
   * Credits of a tenant's charges not yet written: a credit check adds them to the ledger's total,
   * so a tenant cannot spend past its credits in the window before a flush (on this replica).
   */
  pendingCredits(tenantId: string): number {
    return this.unwritten.get(tenantId) ?? 0;
  }

  /**
   * Queues a charge. Resolves at once when buffering (`flushMs` > 0); otherwise once its row is
   * committed (and rejects if it could not be).
   */
  async add(charge: Charge): Promise<void> {
    if (charge.credits <= 0) return;
    if (this.options.flushMs <= 0 || this.closed) {
      await recordCharges(this.sql, [charge]);
      return;
    }
    this.pending.push(charge);
    this.unwritten.set(charge.tenantId, (this.unwritten.get(charge.tenantId) ?? 0) + charge.credits);
    if (this.pending.length >= this.maxBatch) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), this.options.flushMs);
  }

  /** Writes every buffered charge now; failures are reported to `onFlushError` and retried later. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    // One flush at a time: a second caller waits for the first, then writes what came meanwhile.
    this.flushing = (this.flushing ?? Promise.resolve()).then(() => this.writePending());
    return this.flushing;
  }

  /** Stops buffering (later charges are written at once) and writes what is buffered. Safe twice. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
    if (this.pending.length > 0) await this.writePending(true);
  }

  private async writePending(throwOnError = false): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.splice(0, this.maxBatch);
      try {
        await recordCharges(this.sql, batch);
      } catch (error) {
        this.pending.unshift(...batch);
        if (throwOnError) throw error;
        this.options.onFlushError?.(error, this.pending.length);
        if (!this.closed) this.timer ??= setTimeout(() => void this.flush(), Math.max(this.options.flushMs, 1_000));
        return;
      }
      for (const charge of batch) {
        const left = (this.unwritten.get(charge.tenantId) ?? 0) - charge.credits;
        if (left > 0) this.unwritten.set(charge.tenantId, left);
        else this.unwritten.delete(charge.tenantId);
      }
    }
  }
}
