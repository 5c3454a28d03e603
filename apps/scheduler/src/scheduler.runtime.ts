import { Inject, Injectable, Optional } from '@nestjs/common';
import { Logger } from '@trawl/observability';
import { PeriodicLoop, SERVICE_LOGGER, ServiceRuntime, StopCountdown } from '@trawl/service-kit';
import { PreparationsRuntime } from './extract-preparations/preparations.runtime';
import { LeaderElection } from './leadership/leader-election';
import { RetentionSweepService } from './retention/retention-sweep.service';
import { RETENTION_SETTINGS, RetentionSettings } from './retention/retention.settings';
import { RunsRuntime } from './runs/runs.runtime';
import { ScheduleFiringService } from './schedules/schedule-firing.service';
import { SCHEDULER_SETTINGS, SchedulerSettings } from './scheduler.settings';

/**
 * Runs the scheduler's loops after boot: every replica takes part in the election and runs batch
 * execution and Extract preparations, the leader fires due schedules and sweeps expired batch records. On shutdown it
 * finishes the pass in progress and gives the lease up (so another replica leads at once, not
 * after the lease's lifetime).
 */
@Injectable()
export class SchedulerRuntime extends ServiceRuntime {
  /** At boot, then every `renewIntervalMs`: the leader renews, the others try to take the lease. */
  private readonly electing: PeriodicLoop;
  /** Every `pollIntervalMs`, on the leader: due schedules fire. */
  private readonly firing: PeriodicLoop;
  /** Every `sweepIntervalMs`, on the leader: expired batch records go. */
  private readonly sweeping?: PeriodicLoop;

  constructor(
    private readonly election: LeaderElection,
    firings: ScheduleFiringService,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    /** Batch run execution, shared by every replica. */
    @Optional() private readonly runs?: RunsRuntime,
    /** Retention sweeps, run by the leader only. */
    @Optional() retention?: RetentionSweepService,
    @Optional() @Inject(RETENTION_SETTINGS) retentionSettings?: RetentionSettings,
    /** Extract domain preparations, shared by every replica. */
    @Optional() private readonly preparations?: PreparationsRuntime,
  ) {
    super();
    this.electing = new PeriodicLoop({
      name: 'election pass',
      intervalMs: settings.renewIntervalMs,
      pass: async () => {
        await election.electOnce();
      },
      logger,
    });
    this.firing = new PeriodicLoop({
      name: 'firing pass',
      intervalMs: settings.pollIntervalMs,
      firstPass: 'after-interval',
      pass: async () => {
        if (election.current()) await firings.fireDueOnce();
      },
      logger,
    });
    if (retention && retentionSettings) {
      this.sweeping = new PeriodicLoop({
        name: 'retention sweep',
        intervalMs: retentionSettings.sweepIntervalMs,
        firstPass: 'after-interval',
        pass: async () => {
          if (election.current()) await retention.sweepOnce();
        },
        logger,
      });
    }
  }

  protected async startLoops(): Promise<void> {
    this.electing.start();
    this.firing.start();
    this.sweeping?.start();
    this.logger.info({ instance: this.settings.instanceId }, 'scheduler started');
    await this.runs?.start();
    await this.preparations?.start();
  }

  protected async stopLoops(): Promise<void> {
    const drainMs = StopCountdown.start(this.settings.stopDeadlines).drainLeftMs();
    await Promise.all([
      this.electing.stop(drainMs),
      this.firing.stop(drainMs),
      this.sweeping?.stop(drainMs),
      this.runs?.stop(),
      this.preparations?.stop(),
    ]);
    await this.election.release();
  }
}
