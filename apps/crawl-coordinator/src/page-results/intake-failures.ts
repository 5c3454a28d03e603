/**
 * Counts, per crawl, the page-result batches that failed in a row. JetStream's delivery count is
 * not usable for this on nats-server 2.9 (a nak'ed message comes back with count 1), so the
 * coordinator keeps its own; a restart starts counting again, which only delays the verdict.
 */
export class IntakeFailures {
  private readonly failures = new Map<string, number>();

  constructor(
    /** Failed attempts after which the crawl is given up as `internal_error`. */
    readonly limit: number,
  ) {}

  /** Records a failure; true when the crawl has now failed `limit` times in a row. */
  failed(crawlId: string): boolean {
    const count = (this.failures.get(crawlId) ?? 0) + 1;
    this.failures.set(crawlId, count);
    if (count < this.limit) return false;
    this.failures.delete(crawlId);
    return true;
  }

  succeeded(crawlId: string): void {
    this.failures.delete(crawlId);
  }
}
