/**
 * A client-side cap on requests in flight, which follows what the server says of the account's
 * Fetch concurrency: `Concurrency-Limit` lowers the cap to the account's limit, and
 * `Concurrency-Remaining: 0` holds further requests until one in flight ends. Waiters are served
 * in order. Server-side 429s still happen (other clients share the account); the transport retries
 * those.
 */
export class ConcurrencyGate {
  private inFlight = 0;
  private serverLimit: number | undefined;
  /** Requests the server said it would still take when the last answer came, less those sent since. */
  private serverRemaining: number | undefined;
  private readonly waiters: Array<() => void> = [];

  /** @param maxConcurrency the caller's own cap (at least 1). */
  constructor(private readonly maxConcurrency: number) {
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1)
      throw new RangeError(`maxConcurrency must be a positive integer, got ${maxConcurrency}`);
  }

  /** The cap in force now: the caller's, lowered by the account's limit. */
  get limit(): number {
    return Math.min(this.maxConcurrency, this.serverLimit ?? Number.POSITIVE_INFINITY);
  }

  get active(): number {
    return this.inFlight;
  }

  /** Resolves when a request may go; call the returned function once it has its answer. */
  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw signal.reason;
    if (this.waiters.length === 0 && this.mayStart()) this.take();
    else {
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => {
          const at = this.waiters.indexOf(grant);
          if (at >= 0) this.waiters.splice(at, 1);
          reject(signal?.reason);
        };
        // Called by `wake` with the slot already taken, so two waiters never see one free slot.
        const grant = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(grant);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inFlight--;
      this.wake();
    };
  }

  /** Takes the concurrency headers of an answer (any status: the server sends them on errors too). */
  observe(headers: { get(name: string): string | null }): void {
    const limit = nonNegativeInt(headers.get('concurrency-limit'));
    const remaining = nonNegativeInt(headers.get('concurrency-remaining'));
    if (limit !== undefined && limit > 0) this.serverLimit = limit;
    if (remaining !== undefined) this.serverRemaining = remaining;
    this.wake();
  }

  private take(): void {
    this.inFlight++;
    if (this.serverRemaining !== undefined) this.serverRemaining--;
  }

  private mayStart(): boolean {
    if (this.inFlight >= this.limit) return false;
    // The account is full: wait for one of ours to end, whose answer brings fresh headers. With
    // none of ours in flight there is nothing to wait for: try, and let a 429 say so.
    return !(this.serverRemaining !== undefined && this.serverRemaining <= 0 && this.inFlight > 0);
  }

  private wake(): void {
    while (this.waiters.length > 0 && this.mayStart()) {
      this.take();
      this.waiters.shift()!();
    }
  }
}

function nonNegativeInt(value: string | null): number | undefined {
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
