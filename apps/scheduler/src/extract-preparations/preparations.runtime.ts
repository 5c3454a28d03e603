import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { PeriodicLoop, type Runtime, SERVICE_LOGGER, StopCountdown } from '@trawl/service-kit';
import { PreparationConsumer } from './preparation.consumer';
import { PreparationSweepService } from './preparation-sweep.service';
import { PreparationsMetrics } from './preparations.metrics';
import { PreparationsRepository } from './preparations.repository';
import { PREPARATION_SETTINGS, type PreparationSettings } from './preparation.settings';

/** How often served recipes are checked against the KV bucket the workers read. */
const RESTORE_INTERVAL_MS = 5 * 60_000;

/**
 * Extract preparations on every scheduler replica (the work is shared through the queue, not
 * led): the consumer, the sweep, and the check that the KV bucket holds every served recipe. `start`/`stop` are safe to call twice; `SchedulerRuntime` runs it.
 */
@Injectable()
export class PreparationsRuntime implements Runtime {
  /** Every `sweepIntervalMs`, the first one interval after start: preparations whose lease ran out go back. */
  private readonly sweeping: PeriodicLoop;
  /** At start, then every `RESTORE_INTERVAL_MS`. */
  private readonly restoring: PeriodicLoop;
  private started = false;

  constructor(
    private readonly consumer: PreparationConsumer,
    sweep: PreparationSweepService,
    private readonly metrics: PreparationsMetrics,
    private readonly preparations: PreparationsRepository,
    @Inject(PREPARATION_SETTINGS) private readonly settings: PreparationSettings,
    @Inject(SERVICE_LOGGER) logger: Logger,
  ) {
    this.sweeping = new PeriodicLoop({
      name: 'extract preparation sweep',
      intervalMs: settings.sweepIntervalMs,
      firstPass: 'after-interval',
      pass: async () => {
        await sweep.sweepOnce();
      },
      logger,
    });
    this.restoring = new PeriodicLoop({
      name: 'extract recipe check',
      intervalMs: RESTORE_INTERVAL_MS,
      // A warning, not an error: a check that failed changes nothing served, and the next one tries again.
      pass: async () => {
        await sweep
          .restoreRecipes()
          .catch((error: unknown) => logger.warn({ err: error }, 'extract recipes could not be checked against the KV bucket'));
      },
      logger,
    });
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.metrics.countDomainsWith(() => this.preparations.countByStatus());
    await this.consumer.start();
    this.sweeping.start();
    this.restoring.start();
  }

  async stop(): Promise<void> {
    const countdown = StopCountdown.start(this.settings.stopDeadlines);
    await Promise.all([this.sweeping.stop(countdown.drainLeftMs()), this.restoring.stop(countdown.drainLeftMs())]);
    await this.consumer.stop(countdown.settleLeftMs());
  }
}
