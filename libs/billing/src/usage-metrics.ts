import { Counter, Registry } from 'prom-client';
import type { Charge } from './credit-ledger';

/**
 * Most tenants one process labels by id in the per-tenant series; those it meets later count as
 * `tenant_id="other"`. Bounds the series to (200 + 1) × products per process whatever the number of
 * tenants (tenants are created by an administrator, so most installations stay far below it).
 */
export const TENANT_LABELS_MAX = 200;

/** What one process counts as a request of a tenant: `fetch` (Fetch requests), `crawl_page`, `batch` (tasks with a result), `map` (maps). */
export type UsageProduct = 'fetch' | 'crawl_page' | 'batch' | 'map';

/**
 * Credits charged by product and tier, and requests and credits by tenant: the same series in every
 * service that bills (the gateway for Fetch, the coordinator for crawl pages, the scheduler for batch
 * tasks), so the dashboards add them up across jobs. Call it once the charges are final — after
 * the transaction that recorded them commits — or a retried transaction counts them twice.
 */
export class UsageMetrics {
  private readonly credits: Counter<'product' | 'tier'>;
  private readonly tenantRequests: Counter<'tenant_id' | 'product'>;
  private readonly tenantCredits: Counter<'tenant_id' | 'product'>;
  private readonly labelled = new Set<string>();

  constructor(registry: Registry) {
    this.credits = new Counter({
      name: 'trawl_credits_charged_total',
      help: 'Credits charged to tenants, by product (fetch, crawl_page, batch, map) and tier',
      labelNames: ['product', 'tier'],
      registers: [registry],
    });
    this.tenantRequests = new Counter({
      name: 'trawl_tenant_requests_total',
      help: `Requests by tenant and product (fetch: Fetch requests; crawl_page, batch: pages and tasks with a result; map: maps); tenants past the first ${TENANT_LABELS_MAX} seen by this process count as tenant_id="other"`,
      labelNames: ['tenant_id', 'product'],
      registers: [registry],
    });
    this.tenantCredits = new Counter({
      name: 'trawl_tenant_credits_total',
      help: `Credits charged by tenant and product; tenants past the first ${TENANT_LABELS_MAX} seen by this process count as tenant_id="other"`,
      labelNames: ['tenant_id', 'product'],
      registers: [registry],
    });
  }

  /** Counts `count` requests of a tenant (billed or not). */
  requested(tenantId: string, product: UsageProduct, count = 1): void {
    if (count > 0) this.tenantRequests.inc({ tenant_id: this.tenantLabel(tenantId), product }, count);
  }

  /** Counts the credits of charges that are final. */
  billed(charges: readonly Pick<Charge, 'tenantId' | 'credits' | 'product' | 'tier'>[]): void {
    for (const charge of charges) {
      if (charge.credits <= 0) continue;
      this.credits.inc({ product: charge.product, tier: charge.tier }, charge.credits);
      this.tenantCredits.inc({ tenant_id: this.tenantLabel(charge.tenantId), product: charge.product }, charge.credits);
    }
  }

  private tenantLabel(tenantId: string): string {
    if (this.labelled.has(tenantId)) return tenantId;
    if (this.labelled.size >= TENANT_LABELS_MAX) return 'other';
    this.labelled.add(tenantId);
    return tenantId;
  }
}
