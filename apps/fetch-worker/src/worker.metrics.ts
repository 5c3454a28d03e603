import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of a fetch worker: what an operator watches to size the worker fleet. */
export class WorkerMetrics {
  /** Crawl page results published, by outcome (`fetched`, `failed_billed`, `failed`). */
  readonly pages: Counter<'outcome'>;
  /** Time to load one page (redirects and body included), by engine tier and outcome. */
  readonly fetchSeconds: Histogram<'tier' | 'outcome'>;
  /** Crawl pages taken from the work queue and not yet answered or handed back. */
  readonly inFlight: Gauge;
  /** Crawl pages that came several to a message and were published again alone to wait (a busy host or browser, a shutdown). */
  readonly pagesHandedBackAlone: Counter;
  /** Batch tasks dealt with, by outcome (`succeeded`, `failed`, `stale`, `handed_back`). */
  readonly batchTasks: Counter<'outcome'>;
  /** Batch tasks being run or published by this worker. */
  readonly batchInFlight: Gauge;
  /** Batch tasks that came several to a message and were published again alone to wait (browsers busy, shutdown). */
  readonly batchTasksHandedBackAlone: Counter;

  constructor(registry: Registry) {
    this.pages = new Counter({
      name: 'trawl_worker_pages_total',
      help: 'Crawl page results published, by outcome',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.fetchSeconds = new Histogram({
      name: 'trawl_worker_fetch_seconds',
      help: 'Time to load one page, redirects and body included',
      labelNames: ['tier', 'outcome'],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60],
      registers: [registry],
    });
    this.inFlight = new Gauge({
      name: 'trawl_worker_pages_in_flight',
      help: 'Crawl pages being fetched or published by this worker',
      registers: [registry],
    });
    this.pagesHandedBackAlone = new Counter({
      name: 'trawl_worker_pages_handed_back_alone_total',
      help: 'Crawl pages that came several to a message and were published again alone to wait',
      registers: [registry],
    });
    this.batchTasksHandedBackAlone = new Counter({
      name: 'trawl_worker_batch_tasks_handed_back_alone_total',
      help: 'Batch tasks that came several to a message and were published again alone to wait',
      registers: [registry],
    });
    this.batchTasks = new Counter({
      name: 'trawl_worker_batch_tasks_total',
      help: 'Batch tasks dealt with, by outcome (succeeded, failed, stale, handed_back)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.batchInFlight = new Gauge({
      name: 'trawl_worker_batch_tasks_in_flight',
      help: 'Batch tasks being run or published by this worker',
      registers: [registry],
    });
  }
}
