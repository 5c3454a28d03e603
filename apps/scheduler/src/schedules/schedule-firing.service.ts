import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Database, Sql } from '@trawl/persistence';
import { Logger } from '@trawl/observability';
import type { Clock } from '@trawl/scheduling';
import { LeaderElection } from '../leadership/leader-election';
import { Lease, LeaseRepository } from '../leadership/lease.repository';
import { SchedulerMetrics } from '../scheduler.metrics';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { SCHEDULER_CLOCK, SCHEDULER_SETTINGS, SchedulerSettings } from '../scheduler.settings';
import { FiringOutcome, planFiring } from './missed-firings';
import { RUN_STARTER, RunStarter, ScheduledRunStart } from './run-starter';
import { DueSchedule, SchedulesRepository } from './schedules.repository';
import { SchedulerError, SchedulerErrorCode } from './schedules.errors';

/** What one schedule's firing step recorded. */
export interface FiringResult {
  jobId: string;
  /** Outcome of the due time fired now (`duplicate`: another leader had recorded it), if one was. */
  fired?: { dueAt: Date; outcome: FiringOutcome | 'duplicate'; runId?: string };
  skippedMissed: number;
}

const REFUSALS: Record<Extract<ScheduledRunStart, { outcome: 'refused' }>['reason'], FiringOutcome> = {
  quota_exceeded: 'skipped_quota',
  job_unavailable: 'skipped_job_unavailable',
  previous_running: 'skipped_previous_running',
};

/**
 * Fires due schedules while this replica leads. Each schedule is one transaction that first checks
 * the lease epoch (and holds it share-locked, so no takeover commits in between), then records the
 * firing under its `(job_id, due_at)` key and starts the run in the same transaction: a run exists
 * if and only if its firing row does, and a due time is fired at most once whoever leads.
 *
 * Policies (apps/scheduler/README.md "Decisions"): missed due times per `planFiring`; a due time whose
 * previous run is still in flight is recorded `skipped_previous_running` and starts nothing.
 */
@Injectable()
export class ScheduleFiringService {
  constructor(
    private readonly db: Database,
    private readonly election: LeaderElection,
    private readonly leases: LeaseRepository,
    private readonly schedules: SchedulesRepository,
    private readonly metrics: SchedulerMetrics,
    @Inject(RUN_STARTER) private readonly runStarter: RunStarter,
    @Inject(SCHEDULER_CLOCK) private readonly clock: Clock,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /** One pass over due schedules; does nothing unless this replica leads. Answers what it recorded. */
  async fireDueOnce(): Promise<FiringResult[]> {
    const lease = this.election.current();
    if (!lease) return [];
    const due = await this.schedules.dueSchedules(this.db, this.clock.now(), this.settings.batchSize);
    const results: FiringResult[] = [];
    for (const schedule of due) {
      try {
        const result = await this.fireSchedule(lease, schedule);
        if (result) results.push(result);
      } catch (error) {
        if (error instanceof SchedulerError && error.code === SchedulerErrorCode.LeaseLost) {
          this.election.deposed(lease);
          this.logger.warn({ epoch: lease.epoch }, 'firing refused: the lease has a newer epoch');
          break;
        }
        // The transaction rolled back: the schedule stays due and the next pass tries again.
        this.metrics.countFiring('error');
        this.logger.error({ err: error, tenant_id: schedule.tenantId, job_id: schedule.jobId }, 'schedule firing failed');
      }
    }
    return results;
  }

  private async fireSchedule(lease: Lease, due: DueSchedule): Promise<FiringResult | undefined> {
    const now = this.clock.now();
    const result = await this.db.transaction(async (sql) => {
      if (!(await this.leases.holdsEpoch(sql, lease))) {
        throw new SchedulerError(SchedulerErrorCode.LeaseLost, `lease ${lease.name} epoch ${lease.epoch} is gone`);
      }
      const row = await this.schedules.lockDue(sql, due.tenantId, due.jobId, now);
      if (!row) return undefined; // replaced, paused or fired since it was listed
      const plan = planFiring(row.schedule, row.anchorAt, row.nextDueAt, now, { graceMs: this.settings.missedGraceMs });
      const base = { tenantId: row.tenantId, jobId: row.jobId, firedAt: now, leaderEpoch: lease.epoch };
      let skippedMissed = 0;
      for (const dueAt of plan.skipped) {
        const recorded = await this.schedules.recordFiring(sql, {
          ...base,
          id: randomUUID(),
          dueAt,
          outcome: 'skipped_missed',
          runId: null,
        });
        if (recorded) skippedMissed++;
      }
      const fired = plan.fire && (await this.fire(sql, base, plan.fire));
      await this.schedules.advance(sql, row.tenantId, row.jobId, plan.nextDueAt, plan.fire ?? plan.skipped.at(-1) ?? row.nextDueAt, now);
      return { jobId: row.jobId, fired, skippedMissed: skippedMissed + (plan.skippedTotal - plan.skipped.length) };
    });
    if (!result) return undefined;
    // Counted after the commit: a rolled-back firing did not happen.
    this.metrics.countFiring('skipped_missed', result.skippedMissed);
    if (result.fired) {
      this.metrics.countFiring(result.fired.outcome);
      if (result.fired.outcome !== 'duplicate') this.metrics.lagSeconds.observe((now.getTime() - result.fired.dueAt.getTime()) / 1000);
      this.logger.info(
        {
          tenant_id: due.tenantId,
          job_id: due.jobId,
          due_at: result.fired.dueAt,
          outcome: result.fired.outcome,
          run_id: result.fired.runId,
        },
        'schedule fired',
      );
    }
    if (result.skippedMissed > 0) {
      this.logger.warn({ tenant_id: due.tenantId, job_id: due.jobId, skipped: result.skippedMissed }, 'missed due times skipped');
    }
    return result;
  }

  private async fire(
    sql: Sql,
    base: { tenantId: string; jobId: string; firedAt: Date; leaderEpoch: number },
    dueAt: Date,
  ): Promise<NonNullable<FiringResult['fired']>> {
    const id = randomUUID();
    // Unlocked, so only a shortcut: the starter looks again under the job lock (a rerun may commit in
    // between) and refuses with `previous_running`.
    const previous = await this.runStarter.runInFlight(sql, { tenantId: base.tenantId, jobId: base.jobId });
    const outcome: FiringOutcome = previous ? 'skipped_previous_running' : 'started';
    // The key is claimed before the run is created: a due time that another leader already recorded
    // starts nothing here.
    if (!(await this.schedules.recordFiring(sql, { ...base, id, dueAt, outcome, runId: null }))) {
      return { dueAt, outcome: 'duplicate' };
    }
    if (previous) return { dueAt, outcome };
    const start = await this.runStarter.startScheduledRun(sql, { tenantId: base.tenantId, jobId: base.jobId, dueAt, firingId: id });
    if (start.outcome === 'refused') {
      await this.schedules.settleFiring(sql, base.tenantId, id, REFUSALS[start.reason], null);
      return { dueAt, outcome: REFUSALS[start.reason] };
    }
    await this.schedules.settleFiring(sql, base.tenantId, id, 'started', start.runId);
    return { dueAt, outcome: 'started', runId: start.runId };
  }
}
