import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { type Runtime, SERVICE_LOGGER } from '@trawl/service-kit';
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
  private sweepTimer?: NodeJS.Timeout;
  private sweeping?: Promise<unknown>;
  private restoreTimer?: NodeJS.Timeout;
  private restoring?: Promise<unknown>;
  private started = false;

  constructor(
    private readonly consumer: PreparationConsumer,
    private readonly sweep: PreparationSweepService,
    private readonly metrics: PreparationsMetrics,
    private readonly preparations: PreparationsRepository,
    @Inject(PREPARATION_SETTINGS) private readonly settings: PreparationSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    this.metrics.countDomainsWith(() => this.preparations.countByStatus());
    await this.consumer.start();
    this.sweepTimer = setInterval(() => {
      if (this.sweeping) return;
      this.sweeping = this.sweep
        .sweepOnce()
        .catch((error: unknown) => this.logger.error({ err: error }, 'extract preparation sweep failed'))
        .finally(() => (this.sweeping = undefined));
    }, this.settings.sweepIntervalMs);
    const restore = () => {
      if (this.restoring) return;
      this.restoring = this.sweep
        .restoreRecipes()
        .catch((error: unknown) => this.logger.warn({ err: error }, 'extract recipes could not be checked against the KV bucket'))
        .finally(() => (this.restoring = undefined));
    };
    restore();
    this.restoreTimer = setInterval(restore, RESTORE_INTERVAL_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.sweepTimer);
    clearInterval(this.restoreTimer);
    await Promise.all([this.sweeping, this.restoring]);
    await this.consumer.stop();
  }
}
