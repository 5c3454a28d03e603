import { Counter, Histogram, Registry } from 'prom-client';

/** Map API metrics on the gateway's registry: answers by code, their time, and links answered. */
export class MapMetrics {
  readonly requests: Counter<'code'>;
  readonly duration: Histogram<'code'>;
  readonly links: Counter;
  /** Workers that did not take a map, by why (`busy`, `late`); see the Fetch API's `trawl_fetch_worker_not_taken_total`. */
  readonly workersNotTaking: Counter<'reason'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'trawl_map_requests_total',
      help: 'Map answers, by code (OK, or the error code).',
      labelNames: ['code'] as const,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'trawl_map_request_duration_seconds',
      help: 'Time from a map request received to its answer ready, by code.',
      labelNames: ['code'] as const,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
      registers: [registry],
    });
    this.links = new Counter({
      name: 'trawl_map_links_total',
      help: 'Links answered by maps.',
      registers: [registry],
    });
    this.workersNotTaking = new Counter({
      name: 'trawl_map_worker_not_taken_total',
      help: 'Map requests a worker did not take, by reason: busy (no free slot) or late (no accept in time).',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
  }
}
