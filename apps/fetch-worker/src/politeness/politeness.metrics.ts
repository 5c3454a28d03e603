import { Counter, Histogram, type Registry } from 'prom-client';

/** What the per-host limits and back-off did on one worker. */
export class PolitenessMetrics {
  /** Time loads waited for their host before starting, by reason (`concurrency`, `rate`, `backoff`). */
  readonly waitSeconds: Histogram<'reason'>;
  /** Loads not started because their host could not take them in time (handed back or answered busy). */
  readonly deferred: Counter<'reason'>;
  /** 429/503 answers that slowed a host down, by status. */
  readonly backoffs: Counter<'status'>;
  /** Loads retried after their host's pause ended (a 429/503 answer, then the same request once more). */
  readonly retried: Counter;
  /** Reads and writes of the shared host record that failed; the load then went ahead ungoverned. */
  readonly storeErrors: Counter;

  constructor(registry: Registry) {
    this.waitSeconds = new Histogram({
      name: 'trawl_host_wait_seconds',
      help: 'Time page loads waited for their host under the per-host limits and back-off, by reason',
      labelNames: ['reason'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    });
    this.deferred = new Counter({
      name: 'trawl_host_deferred_total',
      help: 'Page loads not started because their host could not take them in time (handed back or answered busy), by reason',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.backoffs = new Counter({
      name: 'trawl_host_backoffs_total',
      help: '429 and 503 answers that slowed their host down cluster-wide, by status',
      labelNames: ['status'],
      registers: [registry],
    });
    this.retried = new Counter({
      name: 'trawl_host_retries_total',
      help: 'Page loads sent again once their host pause ended (after a 429 or 503)',
      registers: [registry],
    });
    this.storeErrors = new Counter({
      name: 'trawl_host_store_errors_total',
      help: 'Failed reads or writes of the shared per-host record; the load went ahead ungoverned',
      registers: [registry],
    });
  }
}
