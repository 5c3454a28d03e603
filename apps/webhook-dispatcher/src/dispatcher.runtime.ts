import { Inject, Injectable } from '@nestjs/common';
import { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, ServiceRuntime } from '@trawl/service-kit';
import { WebhookDeliveryClient } from '@trawl/webhooks';
import { DeliveryPoller } from './deliveries/delivery-poller';
import { RunEventConsumer } from './deliveries/run-event.consumer';

/** Starts intake and delivery after boot; on shutdown stops taking work and finishes attempts under way. */
@Injectable()
export class DispatcherRuntime extends ServiceRuntime {
  constructor(
    private readonly consumer: RunEventConsumer,
    private readonly poller: DeliveryPoller,
    private readonly client: WebhookDeliveryClient,
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
    await this.consumer.stop(5_000);
    // Attempts under way finish (each within its own deadline); a kill instead lets their leases lapse.
    await this.poller.stop();
    await this.client.close();
  }
}
