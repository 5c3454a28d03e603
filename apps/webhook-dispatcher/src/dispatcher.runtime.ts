import { Inject, Injectable } from '@nestjs/common';
import { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, ServiceRuntime, StopCountdown } from '@trawl/service-kit';
import { WebhookDeliveryClient } from '@trawl/webhooks';
import { DeliveryPoller } from './deliveries/delivery-poller';
import { DELIVERY_SETTINGS, type DeliverySettings } from './deliveries/delivery.settings';
import { RunEventConsumer } from './deliveries/run-event.consumer';

/** Starts intake and delivery after boot; on shutdown stops taking work and finishes attempts under way. */
@Injectable()
export class DispatcherRuntime extends ServiceRuntime {
  constructor(
    private readonly consumer: RunEventConsumer,
    private readonly poller: DeliveryPoller,
    private readonly client: WebhookDeliveryClient,
    @Inject(DELIVERY_SETTINGS) private readonly settings: Pick<DeliverySettings, 'stopDeadlines'>,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected async startLoops(): Promise<void> {
    this.poller.start();
    await this.consumer.start();
    this.logger.info('webhook dispatcher started');
  }

  protected async stopLoops(): Promise<void> {
    const countdown = StopCountdown.start(this.settings.stopDeadlines);
    // Intake and delivery stop side by side: neither waits on the other.
    await Promise.all([
      this.consumer.stop(countdown.settleLeftMs()),
      // Attempts under way finish within the drain; one cut off by the exit lets its lease lapse and is made again.
      this.poller.stop(countdown.drainLeftMs()),
    ]);
    await this.client.close();
  }
}
