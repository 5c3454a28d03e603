import type { Charge } from '@trawl/billing';
import type { Sql } from '@trawl/persistence';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Most tenants one process labels by id in the per-tenant series; the ones it sees later count as
 * `other`. Bounds the series to (200 + 1) per process whatever the number of tenants (tenants are
 * created by an administrator, so most installations stay far below it).
 */
export const TENANT_LABELS_MAX = 200;

function tenantLabel(seen: Set<string>, tenantId: string): string {
  if (seen.has(tenantId)) return tenantId;
  if (seen.size >= TENANT_LABELS_MAX) return 'other';
  seen.add(tenantId);
  return tenantId;
}

/** Prometheus metrics of the coordinator: what an operator watches to see crawls progress. */
export class CoordinatorMetrics {
  readonly pagesDispatched: Counter;
  readonly resultsApplied: Counter;
  readonly resultsStale: Counter;
  readonly intakeBatchSeconds: Histogram;
  readonly crawlsFinished: Counter<'status' | 'reason'>;
  readonly leasesReclaimed: Counter<'outcome'>;
  readonly inFlight: Gauge;
  /** Credits charged for crawl pages, by tier (`trawl_credits_charged_total{product="crawl_page"}`). */
  readonly credits: Counter<'product' | 'tier'>;
  /** Pages with a result and their credits, by tenant (see {@link TENANT_LABELS_MAX}). */
  readonly tenantRequests: Counter<'tenant_id' | 'product'>;
  readonly tenantCredits: Counter<'tenant_id' | 'product'>;
  private readonly labelledTenants = new Set<string>();
  private activeSql?: Sql;

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
    this.credits = new Counter({
      name: 'trawl_credits_charged_total',
      help: 'Credits charged to tenants, by product (fetch, crawl_page, batch) and tier',
      labelNames: ['product', 'tier'],
      registers: [registry],
    });
    this.tenantRequests = new Counter({
      name: 'trawl_tenant_requests_total',
      help: `Requests by tenant and product (crawl_page: pages with a result); tenants past the first ${TENANT_LABELS_MAX} seen by this process count as tenant_id="other"`,
      labelNames: ['tenant_id', 'product'],
      registers: [registry],
    });
    this.tenantCredits = new Counter({
      name: 'trawl_tenant_credits_total',
      help: `Credits charged by tenant and product; tenants past the first ${TENANT_LABELS_MAX} seen by this process count as tenant_id="other"`,
      labelNames: ['tenant_id', 'product'],
      registers: [registry],
    });
    const countActive = () => this.countActive();
    new Gauge({
      name: 'trawl_crawls_active',
      help: 'Crawls running now (all tenants, from Postgres at scrape time: every coordinator replica reports the same number)',
      registers: [registry],
      async collect() {
        const active = await countActive();
        if (active !== undefined) this.set(active);
      },
    });
  }

  /** Where `trawl_crawls_active` counts running crawls at scrape time (a partial index covers the count). */
  measureActiveWith(sql: Sql): void {
    this.activeSql = sql;
  }

  /** Counts the pages of one intake batch that were fetched (billed or not), with their credits. */
  charged(charges: readonly Charge[]): void {
    for (const charge of charges) {
      const tenant = tenantLabel(this.labelledTenants, charge.tenantId);
      this.tenantRequests.inc({ tenant_id: tenant, product: charge.product });
      if (charge.credits <= 0) continue;
      this.credits.inc({ product: charge.product, tier: charge.tier }, charge.credits);
      this.tenantCredits.inc({ tenant_id: tenant, product: charge.product }, charge.credits);
    }
  }

  private async countActive(): Promise<number | undefined> {
    if (!this.activeSql) return undefined;
    const rows = await this.activeSql.query<{ n: number }>(`SELECT count(*)::int AS n FROM crawls WHERE status = 'running'`).catch(() => undefined);
    return rows ? rows[0].n : Number.NaN;
  }
}
