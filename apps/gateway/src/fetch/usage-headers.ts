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

  /** `X-Request-Cost` in US dollars (credits × price), without float noise. */
  cost(): string {
    return String(Number((this.credits * this.creditPriceUsd).toFixed(8)));
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
