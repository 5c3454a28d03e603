import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of webhook delivery. */
export class DispatcherMetrics {
  /** Attempts by what followed them: `delivered`, `retry_scheduled`, `failed` (given up). */
  readonly attempts: Counter<'outcome'>;
  /** Time of one attempt, from connect to the receiver's full answer, by `delivered`/`failed`. */
  readonly attemptSeconds: Histogram<'result'>;
  /** Run events taken in as deliveries. */
  readonly accepted: Counter;
  private backlog?: () => Promise<number>;

  constructor(registry: Registry) {
    this.attempts = new Counter({
      name: 'trawl_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered, retry_scheduled, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.attemptSeconds = new Histogram({
      name: 'trawl_webhook_attempt_seconds',
      help: 'Duration of one webhook delivery attempt',
      labelNames: ['result'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.accepted = new Counter({
      name: 'trawl_webhook_events_accepted_total',
      help: 'Run events taken in as webhook deliveries',
      registers: [registry],
    });
    const readBacklog = () => this.backlog?.().catch(() => Number.NaN);
    new Gauge({
      name: 'trawl_webhook_deliveries_due',
      help: 'Webhook deliveries due and not yet taken by a dispatcher (the backlog), read at scrape time',
      registers: [registry],
      async collect() {
        const due = await readBacklog();
        if (due !== undefined) this.set(due);
      },
    });
  }

  /** Where the backlog gauge reads its value at scrape time. */
  measureBacklogWith(backlog: () => Promise<number>): void {
    this.backlog = backlog;
  }
}
