import { UsageMetrics } from '@trawl/billing';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of the coordinator: what an operator watches to see crawls progress. */
export class CoordinatorMetrics {
  readonly pagesDispatched: Counter;
  readonly resultsApplied: Counter;
  readonly resultsStale: Counter;
  readonly intakeBatchSeconds: Histogram;
  readonly crawlsFinished: Counter<'status' | 'reason'>;
  readonly leasesReclaimed: Counter<'outcome'>;
  /** Reads of crawls' sitemaps, by outcome (`read`, `failed`). */
  readonly sitemapsRead: Counter<'outcome'>;
  readonly inFlight: Gauge;
  /** Crawl pages with a result and their credits, by tier and tenant; counted once their intake commits. */
  readonly usage: UsageMetrics;
  private countRunning?: () => Promise<number>;

  constructor(registry: Registry) {
    this.pagesDispatched = new Counter({
      name: 'trawl_crawl_pages_dispatched_total',
      help: 'Page claims published to fetch workers',
      registers: [registry],
    });
    this.resultsApplied = new Counter({
      name: 'trawl_crawl_results_applied_total',
      help: 'Page results applied to crawls',
      registers: [registry],
    });
    this.resultsStale = new Counter({
      name: 'trawl_crawl_results_stale_total',
      help: 'Page results ignored because they answered an outdated claim (redeliveries)',
      registers: [registry],
    });
    this.intakeBatchSeconds = new Histogram({
      name: 'trawl_crawl_intake_batch_seconds',
      help: 'Time to apply one batch of page results in one transaction',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    this.sitemapsRead = new Counter({
      name: 'trawl_crawl_sitemaps_read_total',
      help: "Reads of crawls' sitemaps (crawls with sitemap: include or only), by outcome (read, failed)",
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.crawlsFinished = new Counter({
      name: 'trawl_crawls_finished_total',
      help: 'Crawls that ended, by status and reason',
      labelNames: ['status', 'reason'],
      registers: [registry],
    });
    this.leasesReclaimed = new Counter({
      name: 'trawl_crawl_leases_reclaimed_total',
      help: 'Expired page claims handed out again (requeued) or given up (abandoned)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.inFlight = new Gauge({
      name: 'trawl_crawl_pages_in_flight',
      help: 'Pages dispatched and not yet answered, as the dispatcher last saw them',
      registers: [registry],
    });
    this.usage = new UsageMetrics(registry);
    const countRunning = () => this.countRunning?.();
    new Gauge({
      name: 'trawl_crawls_active',
      help: 'Crawls running now (all tenants, from Postgres at scrape time: every coordinator replica reports the same number)',
      registers: [registry],
      async collect() {
        // A failed count shows as a gap (NaN), not as the last number seen.
        const running = countRunning();
        if (running) this.set(await running.catch(() => Number.NaN));
      },
    });
  }

  /** How `trawl_crawls_active` counts running crawls at scrape time. */
  countRunningWith(count: () => Promise<number>): void {
    this.countRunning = count;
  }
}
