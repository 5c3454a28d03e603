import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Most tenants one process labels by id in the per-tenant series; the ones it sees later count as
 * `other`. Bounds the series to (200 + 1) × products per process whatever the number of tenants
 * (tenants are created by an administrator, so most installations stay far below it).
 */
export const TENANT_LABELS_MAX = 200;

function tenantLabel(seen: Set<string>, tenantId: string): string {
  if (seen.has(tenantId)) return tenantId;
  if (seen.size >= TENANT_LABELS_MAX) return 'other';
  seen.add(tenantId);
  return tenantId;
}

/**
 * Fetch metrics on the gateway's registry: answers by code and billed tier, latency, and the
 * concurrency slots this replica holds now (the global count is in Postgres).
 */
export class FetchMetrics {
  readonly requests: Counter<'code' | 'tier'>;
  readonly duration: Histogram<'code'>;
  readonly slotsInUse: Gauge;
  /** Postgres on the hot path: an operator sees what admission and the slot's release add to each request. */
  readonly limitsStep: Histogram<'step'>;
  /** Requests sent to a worker before their admission returned, by what admission then said: a high `called_off` is wasted work. */
  readonly headStarts: Counter<'outcome'>;
  /** Credits billed for Fetch answers, by tier (`trawl_credits_charged_total`, also counted by crawls and batch runs). */
  readonly credits: Counter<'product' | 'tier'>;
  /** Fetch requests and credits by tenant, for the tenants dashboard's top-k (see {@link TENANT_LABELS_MAX}). */
  readonly tenantRequests: Counter<'tenant_id' | 'product'>;
  readonly tenantCredits: Counter<'tenant_id' | 'product'>;
  private readonly labelledTenants = new Set<string>();

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'trawl_fetch_requests_total',
      help: 'Fetch answers, by code (OK, or the error code) and billed tier (none when free).',
      labelNames: ['code', 'tier'] as const,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'trawl_fetch_request_duration_seconds',
      help: 'Time from a Fetch request received to its answer ready, by code.',
      labelNames: ['code'] as const,
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 180],
      registers: [registry],
    });
    this.limitsStep = new Histogram({
      name: 'trawl_fetch_limits_seconds',
      help: 'Time of the Postgres steps of a Fetch request: admit (rate window, account, slot) and release (the slot; for a tenant far from its limit, until written with an admission).',
      labelNames: ['step'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    });
    this.headStarts = new Counter({
      name: 'trawl_fetch_head_starts_total',
      help: 'Fetch requests sent to a worker before their admission returned, by outcome: admitted, or called_off when admission refused them.',
      labelNames: ['outcome'] as const,
      registers: [registry],
    });
    this.credits = new Counter({
      name: 'trawl_credits_charged_total',
      help: 'Credits charged to tenants, by product (fetch, crawl_page, batch) and tier.',
      labelNames: ['product', 'tier'] as const,
      registers: [registry],
    });
    this.tenantRequests = new Counter({
      name: 'trawl_tenant_requests_total',
      help: `Requests by tenant and product (fetch: Fetch requests answered; crawl_page, batch: pages and tasks with a result); tenants past the first ${TENANT_LABELS_MAX} seen by this process count as tenant_id="other".`,
      labelNames: ['tenant_id', 'product'] as const,
      registers: [registry],
    });
    this.tenantCredits = new Counter({
      name: 'trawl_tenant_credits_total',
      help: `Credits charged by tenant and product; tenants past the first ${TENANT_LABELS_MAX} seen by this process count as tenant_id="other".`,
      labelNames: ['tenant_id', 'product'] as const,
      registers: [registry],
    });
    this.slotsInUse = new Gauge({
      name: 'trawl_fetch_slots_in_use',
      help: 'Concurrency slots held by Fetch requests on this gateway replica.',
      registers: [registry],
    });
  }

  /** Counts one Fetch request of a tenant (whatever its answer). */
  requested(tenantId: string): void {
    this.tenantRequests.inc({ tenant_id: tenantLabel(this.labelledTenants, tenantId), product: 'fetch' });
  }

  /** Counts the credits billed for one Fetch answer. */
  charged(tenantId: string, tier: string, credits: number): void {
    if (credits <= 0) return;
    this.credits.inc({ product: 'fetch', tier }, credits);
    this.tenantCredits.inc({ tenant_id: tenantLabel(this.labelledTenants, tenantId), product: 'fetch' }, credits);
  }

  /** Counts one answer that took `seconds`. */
  answered(code: string, tier: string | null, seconds: number): void {
    this.requests.inc({ code, tier: tier ?? 'none' });
    this.duration.observe({ code }, seconds);
  }
}
