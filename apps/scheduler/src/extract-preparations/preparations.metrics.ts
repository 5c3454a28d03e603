import { PREPARED_DOMAIN_STATUSES, type PreparedDomainStatus } from '@trawl/contracts';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of Extract preparations. */
export class PreparationsMetrics {
  /** Deliveries of preparation messages, by what they came to (`ready`, `failed`, `lost`, `stale`, `retried`). */
  readonly deliveries: Counter<'outcome'>;
  /** Pages a preparation tried, by result (`learnable`, `not_learnable`, `failed`). */
  readonly pages: Counter<'result'>;
  /** Time to learn a recipe from the fetched pages. */
  readonly learnSeconds: Histogram;
  private countDomains?: () => Promise<Record<PreparedDomainStatus, number>>;

  constructor(registry: Registry) {
    this.deliveries = new Counter({
      name: 'trawl_extract_preparation_deliveries_total',
      help: 'Extract preparation messages dealt with, by outcome (ready, failed, lost to another preparer, stale, retried)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.pages = new Counter({
      name: 'trawl_extract_preparation_pages_total',
      help: 'Pages Extract preparations tried, by result (learnable, not_learnable, failed)',
      labelNames: ['result'],
      registers: [registry],
    });
    this.learnSeconds = new Histogram({
      name: 'trawl_extract_learn_seconds',
      help: 'Time to learn one recipe from a preparation’s pages',
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
      registers: [registry],
    });
    const count = () => this.countDomains?.();
    new Gauge({
      name: 'trawl_extract_domains',
      help: 'Extract domains by status (from Postgres at scrape time: every scheduler replica reports the same numbers)',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        const counting = count();
        if (!counting) return;
        const byStatus = await counting.catch(() => undefined);
        for (const status of PREPARED_DOMAIN_STATUSES) this.set({ status }, byStatus ? byStatus[status] : Number.NaN);
      },
    });
  }

  /** How `trawl_extract_domains` counts domains by status at scrape time. */
  countDomainsWith(count: () => Promise<Record<PreparedDomainStatus, number>>): void {
    this.countDomains = count;
  }
}
