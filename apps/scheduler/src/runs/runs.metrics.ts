import type { Charge } from '@trawl/billing';
import type { Sql } from '@trawl/persistence';
import { Counter, Gauge, Registry } from 'prom-client';

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

/** Prometheus metrics of batch run execution. */
export class RunsMetrics {
  /** Tasks published to workers. */
  readonly dispatched: Counter;
  /** Task results taken in, by what became of them (`applied`, `ignored` for late or duplicate, `released` for skipped claims put back) and state. */
  readonly results: Counter<'outcome' | 'state'>;
  /** Claims whose lease ran out, by what became of them (`requeued`, `failed`). */
  readonly expired: Counter<'outcome'>;
  /** Runs moved to another status, by target status. */
  readonly transitions: Counter<'to'>;
  /** Credits charged for batch tasks, by tier (`trawl_credits_charged_total{product="batch"}`). */
  readonly credits: Counter<'product' | 'tier'>;
  /** Tasks with a result and their credits, by tenant (see {@link TENANT_LABELS_MAX}). */
  readonly tenantRequests: Counter<'tenant_id' | 'product'>;
  readonly tenantCredits: Counter<'tenant_id' | 'product'>;
  private readonly labelledTenants = new Set<string>();
  private activeSql?: Sql;

  constructor(registry: Registry) {
    this.dispatched = new Counter({
      name: 'trawl_batch_tasks_dispatched_total',
      help: 'Batch tasks published to fetch workers',
      registers: [registry],
    });
    this.results = new Counter({
      name: 'trawl_batch_task_results_total',
      help: 'Batch task results taken in, by outcome (applied, ignored, released) and task state (succeeded, failed, skipped)',
      labelNames: ['outcome', 'state'],
      registers: [registry],
    });
    this.expired = new Counter({
      name: 'trawl_batch_task_leases_expired_total',
      help: 'Batch task claims whose lease ran out, by outcome (requeued, failed)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.transitions = new Counter({
      name: 'trawl_batch_run_transitions_total',
      help: 'Batch runs moved to a status (running, completed, failed)',
      labelNames: ['to'],
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
      help: `Requests by tenant and product (batch: tasks with a result); tenants past the first ${TENANT_LABELS_MAX} seen by this process count as tenant_id="other"`,
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
      name: 'trawl_batch_runs_active',
      help: 'Batch runs queued, running or paused now, by status (all tenants, from Postgres at scrape time: every scheduler replica reports the same numbers)',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        const byStatus = await countActive();
        if (byStatus) for (const [status, n] of Object.entries(byStatus)) this.set({ status }, n);
      },
    });
  }

  /** Where `trawl_batch_runs_active` counts active runs at scrape time (a partial index covers the count). */
  measureActiveWith(sql: Sql): void {
    this.activeSql = sql;
  }

  /** Counts one task with a result of a tenant's run (billed or not). */
  tenantTask(tenantId: string): void {
    this.tenantRequests.inc({ tenant_id: tenantLabel(this.labelledTenants, tenantId), product: 'batch' });
  }

  /** Counts the credits of the charges of one intake batch. */
  charged(charges: readonly Charge[]): void {
    for (const charge of charges) {
      if (charge.credits <= 0) continue;
      this.credits.inc({ product: charge.product, tier: charge.tier }, charge.credits);
      this.tenantCredits.inc({ tenant_id: tenantLabel(this.labelledTenants, charge.tenantId), product: charge.product }, charge.credits);
    }
  }

  private async countActive(): Promise<Record<string, number> | undefined> {
    if (!this.activeSql) return undefined;
    const rows = await this.activeSql
      .query<{ status: string; n: number }>(
        `SELECT s.status, count(r.id)::int AS n FROM unnest(ARRAY['queued', 'running', 'paused']) AS s(status)
         LEFT JOIN job_runs r ON r.status = s.status AND r.status IN ('queued', 'running', 'paused') GROUP BY s.status`,
      )
      .catch(() => undefined);
    // A failed count shows as NaN (a gap), not as the last number seen.
    return Object.fromEntries(['queued', 'running', 'paused'].map((status) => [status, rows ? (rows.find((r) => r.status === status)?.n ?? 0) : Number.NaN]));
  }
}
