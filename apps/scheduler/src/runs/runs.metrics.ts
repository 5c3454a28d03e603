import { UsageMetrics } from '@trawl/billing';
import { type RunInFlightStatus, RUNS_IN_FLIGHT } from '@trawl/persistence';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  /**
   * One intake transaction (results applied, freed slots claimed again), commit included: every
   * result waits for the intake before its own, so this is part of every task's cycle.
   */
  readonly intakeSeconds: Histogram;
  /** Batch tasks with a result and their credits, by tier and tenant; counted once their intake commits. */
  readonly usage: UsageMetrics;
  private countActive?: () => Promise<Record<RunInFlightStatus, number>>;

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
    this.intakeSeconds = new Histogram({
      name: 'trawl_batch_intake_seconds',
      help: 'Time to take in one batch of task results in one transaction, the freed slots claimed again included',
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    this.usage = new UsageMetrics(registry);
    const countActive = () => this.countActive?.();
    new Gauge({
      name: 'trawl_batch_runs_active',
      help: 'Batch runs queued, running or paused now, by status (all tenants, from Postgres at scrape time: every scheduler replica reports the same numbers)',
      labelNames: ['status'],
      registers: [registry],
      async collect() {
        const counting = countActive();
        if (!counting) return;
        // A failed count shows as a gap (NaN), not as the last numbers seen.
        const byStatus = await counting.catch(() => undefined);
        for (const status of RUNS_IN_FLIGHT) this.set({ status }, byStatus ? byStatus[status] : Number.NaN);
      },
    });
  }

  /** How `trawl_batch_runs_active` counts the runs not over, by status, at scrape time. */
  countActiveWith(count: () => Promise<Record<RunInFlightStatus, number>>): void {
    this.countActive = count;
  }
}
