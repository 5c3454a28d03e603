import { Inject, Injectable, Optional } from '@nestjs/common';
import { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, ServiceRuntime } from '@trawl/service-kit';
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
  private electionTimer?: NodeJS.Timeout;
  private firingTimer?: NodeJS.Timeout;
  private electing?: Promise<unknown>;
  private firing?: Promise<unknown>;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<unknown>;

  constructor(
    private readonly election: LeaderElection,
    private readonly firings: ScheduleFiringService,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    /** Batch run execution, shared by every replica. */
    @Optional() private readonly runs?: RunsRuntime,
    /** Retention sweeps, run by the leader only. */
    @Optional() private readonly retention?: RetentionSweepService,
    @Optional() @Inject(RETENTION_SETTINGS) private readonly retentionSettings?: RetentionSettings,
    /** Extract domain preparations, shared by every replica. */
    @Optional() private readonly preparations?: PreparationsRuntime,
  ) {
    super();
  }

  protected async startLoops(): Promise<void> {
    const elect = () => {
      if (this.electing) return;
      this.electing = this.election
        .electOnce()
        .catch((error: unknown) => this.logger.error({ err: error }, 'election pass failed'))
        .finally(() => (this.electing = undefined));
    };
    const fire = () => {
      if (this.firing || !this.election.current()) return;
      this.firing = this.firings
        .fireDueOnce()
        .catch((error: unknown) => this.logger.error({ err: error }, 'firing pass failed'))
        .finally(() => (this.firing = undefined));
    };
    const sweep = () => {
      if (this.sweeping || !this.retention || !this.election.current()) return;
      this.sweeping = this.retention
        .sweepOnce()
        .catch((error: unknown) => this.logger.error({ err: error }, 'retention sweep failed'))
        .finally(() => (this.sweeping = undefined));
    };
    elect();
    this.electionTimer = setInterval(elect, this.settings.renewIntervalMs);
    this.firingTimer = setInterval(fire, this.settings.pollIntervalMs);
    if (this.retention && this.retentionSettings) this.sweepTimer = setInterval(sweep, this.retentionSettings.sweepIntervalMs);
    this.logger.info({ instance: this.settings.instanceId }, 'scheduler started');
    await this.runs?.start();
    await this.preparations?.start();
  }

  protected async stopLoops(): Promise<void> {
    clearInterval(this.electionTimer);
    clearInterval(this.firingTimer);
    clearInterval(this.sweepTimer);
    await Promise.all([this.electing, this.firing, this.sweeping, this.runs?.stop(), this.preparations?.stop()]);
    await this.election.release();
  }
}
