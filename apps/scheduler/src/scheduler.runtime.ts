import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { MessagingConnection } from '@trawl/messaging';
import { Database } from '@trawl/persistence';
import { Logger } from '@trawl/observability';
import { LeaderElection } from './leadership/leader-election';
import { RetentionSweepService } from './retention/retention-sweep.service';
import { RETENTION_SETTINGS, RetentionSettings } from './retention/retention.settings';
import { RunsRuntime } from './runs/runs.runtime';
import { ScheduleFiringService } from './schedules/schedule-firing.service';
import { SCHEDULER_LOGGER, SCHEDULER_MESSAGING, SCHEDULER_SETTINGS, SchedulerSettings } from './scheduler.settings';

export { SCHEDULER_MESSAGING } from './scheduler.settings';

/**
 * Runs the scheduler's loops after boot: every replica takes part in the election, the leader fires
 * due schedules and sweeps expired batch records. On shutdown it finishes the pass in progress, gives the lease up (so another replica
 * leads at once, not after the lease's lifetime) and closes its connections. `start`/`stop` are safe
 * to call twice.
 */
@Injectable()
export class SchedulerRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private electionTimer?: NodeJS.Timeout;
  private firingTimer?: NodeJS.Timeout;
  private electing?: Promise<unknown>;
  private firing?: Promise<unknown>;
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<unknown>;
  private stopped?: Promise<void>;

  constructor(
    private readonly db: Database,
    private readonly election: LeaderElection,
    private readonly firings: ScheduleFiringService,
    @Inject(SCHEDULER_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    /** Batch run execution, shared by every replica; stopped before the connections close. */
    @Optional() private readonly runs?: RunsRuntime,
    /** Retention sweeps, run by the leader only. */
    @Optional() private readonly retention?: RetentionSweepService,
    @Optional() @Inject(RETENTION_SETTINGS) private readonly retentionSettings?: RetentionSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.start();
    await this.runs?.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  start(): void {
    if (this.electionTimer || this.stopped) return;
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
  }

  stop(): Promise<void> {
    this.stopped ??= (async () => {
      clearInterval(this.electionTimer);
      clearInterval(this.firingTimer);
      clearInterval(this.sweepTimer);
      await Promise.all([this.electing, this.firing, this.sweeping, this.runs?.stop()]);
      await this.election.release();
      await this.messaging.close().catch(() => undefined);
      await this.db.dataSource.destroy().catch(() => undefined);
    })();
    return this.stopped;
  }
}
