/**
 * The usage headers every Fetch answer carries, errors included (fetch-details "Response headers",
 * "Client retry habits"): filled in as the request learns them, sent whatever the outcome.
 */
export class UsageHeaders {
  private concurrencyLimit?: number;
  private concurrencyInUse?: number;
  private credits = 0;

  constructor(
    readonly requestId: string,
    /** Price of one credit, in US dollars. */
    private readonly creditPriceUsd: number,
  ) {}

  concurrency(limit: number, inUse: number): void {
    this.concurrencyLimit = limit;
    this.concurrencyInUse = Math.min(limit, inUse);
  }

  billed(credits: number): void {
    this.credits = credits;
  }

  /** What `credits` cost in US dollars at this answer's price (what the ledger keeps), without float noise. */
  costOf(credits: number): number {
    return Number((credits * this.creditPriceUsd).toFixed(8));
  }

  /** `X-Request-Cost` in US dollars (credits × price). */
  cost(): string {
    return String(this.costOf(this.credits));
  }

  toHeaders(): Record<string, string> {
    const headers: Record<string, string> = {
      'x-request-id': this.requestId,
      'x-request-credits': String(this.credits),
      'x-request-cost': this.cost(),
    };
    if (this.concurrencyLimit !== undefined && this.concurrencyInUse !== undefined) {
      headers['concurrency-limit'] = String(this.concurrencyLimit);
      headers['concurrency-remaining'] = String(Math.max(0, this.concurrencyLimit - this.concurrencyInUse));
    }
    return headers;
  }
}
