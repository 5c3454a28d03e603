import { UsageMetrics } from '@trawl/billing';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  /**
   * Workers that did not take a Fetch request, by why: `busy` (no free slot) or `late` (no accept
   * within `FETCH_RPC_ACCEPT_TIMEOUT_MS`: lost, or its event loop stalled). Late ones that add up
   * to `RESP009` are not a capacity problem, though the client is told "busy".
   */
  readonly workersNotTaking: Counter<'reason'>;
  /** Fetch requests and credits by tenant and tier, as crawls and batch runs count theirs. */
  private readonly usage: UsageMetrics;

  constructor(registry: Registry, usage: UsageMetrics) {
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
    this.workersNotTaking = new Counter({
      name: 'trawl_fetch_worker_not_taken_total',
      help: 'Fetch requests a worker did not take, by reason: busy (no free slot) or late (no accept in time); each is asked of another worker, or answers RESP009 once the retries are spent.',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
    this.usage = usage;
    this.slotsInUse = new Gauge({
      name: 'trawl_fetch_slots_in_use',
      help: 'Concurrency slots held by Fetch requests on this gateway replica.',
      registers: [registry],
    });
  }

  /** Counts one Fetch request of a tenant (whatever its answer). */
  requested(tenantId: string): void {
    this.usage.requested(tenantId, 'fetch');
  }

  /** Counts the credits billed for one Fetch answer. */
  charged(tenantId: string, tier: string, credits: number): void {
    this.usage.billed([{ tenantId, credits, product: 'fetch', tier }]);
  }

  /** Counts one answer that took `seconds`. */
  answered(code: string, tier: string | null, seconds: number): void {
    this.requests.inc({ code, tier: tier ?? 'none' });
    this.duration.observe({ code }, seconds);
  }
}
