import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import type { Database } from '@trawl/persistence';
import type { WebhookDeliveryClient } from '@trawl/webhooks';
import type { DeliveryPoller } from './deliveries/delivery-poller';
import type { RunEventConsumer } from './deliveries/run-event.consumer';

export const DISPATCHER_PARTS = Symbol('DISPATCHER_PARTS');

/** What the dispatcher runs and holds, built in `WebhookDispatcherModule.forRoot`. */
export interface DispatcherParts {
  db: Database;
  messaging: MessagingConnection;
  client: WebhookDeliveryClient;
  consumer: RunEventConsumer;
  poller: DeliveryPoller;
  logger: Logger;
}

/** Starts intake and delivery after boot; on shutdown stops taking work, finishes attempts under way, closes. */
@Injectable()
export class DispatcherRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(DISPATCHER_PARTS) private readonly parts: DispatcherParts) {}

  async onApplicationBootstrap(): Promise<void> {
    this.parts.poller.start();
    await this.parts.consumer.start();
    this.parts.logger.info('webhook dispatcher started');
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.parts.consumer.stop(5_000);
    // Attempts under way finish (each within its own deadline); a kill instead lets their leases lapse.
    await this.parts.poller.stop();
    await this.parts.client.close();
    await this.parts.messaging.close();
    await this.parts.db.dataSource.destroy().catch(() => undefined);
  }
}
