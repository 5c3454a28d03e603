/** Most client addresses whose failures are remembered (the ones seen longest ago go first). */
const MAX_ADDRESSES = 10_000;

/**
 * Failed admin authentications per client address, over a sliding window (a minute): past
 * `maxFailures`, the address is refused until its oldest failure leaves the window. In memory, per
 * replica: guessing a token of 16 characters or more is hopeless anyway; this keeps a scanner from
 * trying at line speed and from filling the audit.
 */
export class AdminAuthThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until `address` may try again; 0 when it may now. */
  retryAfterMs(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.maxFailures) return 0;
    return recent[recent.length - this.maxFailures] + this.windowMs - this.now();
  }

  /** Counts a failure of `address`; true when it is the one that reached the limit. */
  failed(address: string): boolean {
    const recent = this.recent(address);
    const reached = recent.length === this.maxFailures - 1;
    recent.push(this.now());
    // Only the last `maxFailures` decide when the address may try again.
    if (recent.length > this.maxFailures) recent.splice(0, recent.length - this.maxFailures);
    this.failures.delete(address);
    this.failures.set(address, recent);
    if (this.failures.size > MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value!);
    return reached;
  }

  private recent(address: string): number[] {
    const since = this.now() - this.windowMs;
    const kept = (this.failures.get(address) ?? []).filter((at) => at > since);
    if (kept.length === 0) this.failures.delete(address);
    return kept;
  }
}
