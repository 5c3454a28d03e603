import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { FiringOutcome } from './schedules/missed-firings';

/** Prometheus metrics of the schedule engine: who leads, what fired, how late. */
export class SchedulerMetrics {
  readonly firings: Counter<'outcome'>;
  readonly leader: Gauge;
  readonly lagSeconds: Histogram;
  readonly leadershipChanges: Counter<'change'>;

  constructor(registry: Registry) {
    this.firings = new Counter({
      name: 'trawl_schedule_firings_total',
      help: 'Due times of schedules dealt with, by outcome (started, skipped_*, duplicate, error)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.leader = new Gauge({
      name: 'trawl_scheduler_leader',
      help: '1 while this replica holds the schedule lease, else 0',
      registers: [registry],
    });
    this.lagSeconds = new Histogram({
      name: 'trawl_schedule_lag_seconds',
      help: 'Time from a due time to its firing being recorded',
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600],
      registers: [registry],
    });
    this.leadershipChanges = new Counter({
      name: 'trawl_scheduler_leadership_changes_total',
      help: 'Times this replica took (acquired) or lost (lost) the schedule lease',
      labelNames: ['change'],
      registers: [registry],
    });
  }

  countFiring(outcome: FiringOutcome | 'duplicate' | 'error', count = 1): void {
    if (count > 0) this.firings.inc({ outcome }, count);
  }
}
