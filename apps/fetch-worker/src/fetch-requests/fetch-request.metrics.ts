import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of the Fetch API on a worker. */
export class FetchRequestMetrics {
  /** Fetch requests answered, by answer code (`ok`, or the worker error code) and billed tier (`none` when free). */
  readonly requests: Counter<'code' | 'tier'>;
  /** Time from taking a request to its answer, by answer code. */
  readonly seconds: Histogram<'code'>;
  /** Fetch requests being served by this worker. */
  readonly inFlight: Gauge;
  /** Time to apply an Extract recipe to a page (`extract=auto`), parsing included. */
  readonly extractSeconds: Histogram;
  /** `mode=auto` attempts found blocked, by tier and reason (`status`, `challenge`, `needs_javascript`). */
  readonly blockedAttempts: Counter<'tier' | 'reason'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'trawl_worker_fetch_requests_total',
      help: 'Fetch API requests answered, by answer code and billed tier',
      labelNames: ['code', 'tier'],
      registers: [registry],
    });
    this.seconds = new Histogram({
      name: 'trawl_worker_fetch_request_seconds',
      help: 'Time to answer one Fetch API request',
      labelNames: ['code'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 180],
      registers: [registry],
    });
    this.extractSeconds = new Histogram({
      name: 'trawl_worker_extract_apply_seconds',
      help: 'Time to apply an Extract recipe to one page (parsing included)',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    });
    this.blockedAttempts = new Counter({
      name: 'trawl_worker_stealth_blocked_attempts_total',
      help: 'Adaptive stealth attempts found blocked, by tier and reason',
      labelNames: ['tier', 'reason'],
      registers: [registry],
    });
    this.inFlight = new Gauge({
      name: 'trawl_worker_fetch_requests_in_flight',
      help: 'Fetch API requests being served by this worker',
      registers: [registry],
    });
  }
}
