import { Inject, Injectable } from '@nestjs/common';
import { crawlPageResultV1, CrawlPageResultV1 } from '@trawl/contracts';
import { BatchConsumer, Disposition } from '@trawl/messaging';
import { Logger } from '@trawl/observability';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from '../coordinator.settings';
import { CoordinatorMetrics } from '../coordinator.metrics';
import { MESSAGING, CoordinatorMessaging } from '../messaging/coordinator-messaging';
import { COORDINATOR_LOGGER } from '../coordinator.logger';
import { DispatcherService } from '../frontier/dispatcher.service';
import { PageResultService } from './page-result.service';

/**
 * Takes page results from JetStream in batches and hands them to the intake service; a batch is
 * acknowledged only after its transaction commits, and nak'ed with a delay when it fails.
 */
@Injectable()
export class PageResultConsumer {
  private consumer?: BatchConsumer<CrawlPageResultV1>;

  constructor(
    private readonly intake: PageResultService,
    private readonly dispatcher: DispatcherService,
    private readonly metrics: CoordinatorMetrics,
    @Inject(MESSAGING) private readonly messaging: CoordinatorMessaging,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(COORDINATOR_LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.consumer) return;
    this.consumer = new BatchConsumer<CrawlPageResultV1>({
      js: this.messaging.js,
      stream: this.settings.topology.streams.crawlResults,
      durable: this.settings.topology.consumers.crawlCoordinators,
      schema: crawlPageResultV1,
      logger: this.logger,
      maxBatch: this.settings.resultBatch,
      maxWaitMs: 50,
      handler: async (messages): Promise<Disposition[]> => {
        const stopTimer = this.metrics.intakeBatchSeconds.startTimer();
        try {
          const outcome = await this.intake.apply(messages.map((m) => m.data));
          if (outcome.crawlsWithNewWork.length > 0) this.dispatcher.notify();
          return messages.map(() => ({ kind: 'ack' }));
        } catch (error) {
          this.logger.error({ err: error, batch: messages.length }, 'applying page results failed');
          return messages.map((m) => ({ kind: 'nak', delayMs: Math.min(30_000, 500 * m.deliveryCount) }));
        } finally {
          stopTimer();
        }
      },
    });
    await this.consumer.start();
  }

  async stop(deadlineMs: number): Promise<void> {
    await this.consumer?.stop(deadlineMs);
    this.consumer = undefined;
  }
}
