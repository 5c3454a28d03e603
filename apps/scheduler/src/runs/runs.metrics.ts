import { Counter, Registry } from 'prom-client';

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
  }
}
