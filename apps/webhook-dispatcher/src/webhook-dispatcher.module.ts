import { DynamicModule, Module } from '@nestjs/common';
import { webhookConsumerDefinition } from '@trawl/contracts';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { Logger } from '@trawl/observability';
import { connectService } from '@trawl/service-kit';
import { SigningKeysRepository, WebhookDeliveryClient } from '@trawl/webhooks';
import { WebhookDispatcherConfig } from './config';
import { DeliveryPoller } from './deliveries/delivery-poller';
import { DeliveryRepository } from './deliveries/delivery.repository';
import { DeliveryService } from './deliveries/delivery.service';
import { RunEventConsumer } from './deliveries/run-event.consumer';
import { DispatcherMetrics } from './dispatcher.metrics';
import { DispatcherRuntime } from './dispatcher.runtime';

/**
 * The webhook dispatcher: run events from the events stream become delivery
 * rows; due deliveries are claimed from Postgres, signed, sent and retried with backoff.
 */
@Module({})
export class WebhookDispatcherModule {
  static async forRoot(config: WebhookDispatcherConfig, logger: Logger): Promise<DynamicModule> {
    const service = await connectService({
      name: 'webhook-dispatcher',
      config,
      logger,
      database: { url: config.DATABASE_URL, poolSize: config.DB_POOL_SIZE },
      messaging: (topology) => ({ streams: [topology.streams.events], consumers: [webhookConsumerDefinition(topology).durable] }),
    });
    const { db, messaging } = service;
    const consumerDefinition = webhookConsumerDefinition(service.topology);
    const metrics = new DispatcherMetrics(service.registry);
    const client = new WebhookDeliveryClient({
      policy: new EgressPolicy({ hostMap: parseHostMap(config.EGRESS_HOST_MAP) }),
      timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    });
    const deliveries = new DeliveryService({
      db,
      deliveries: new DeliveryRepository(),
      keys: new SigningKeysRepository(),
      box: config.SECRETS_KEY,
      client,
      schedule: {
        baseMs: config.WEBHOOK_RETRY_BASE_MS,
        maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS,
        windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      },
      attemptTimeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
      metrics,
      logger,
    });
    metrics.measureBacklogWith(() => deliveries.backlog());
    if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: signed webhooks cannot be delivered');
    const poller = new DeliveryPoller(
      deliveries,
      { concurrency: config.WEBHOOK_CONCURRENCY, pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS },
      logger,
    );
    const consumer = new RunEventConsumer(
      { js: messaging.js, stream: consumerDefinition.stream, durable: consumerDefinition.durable, concurrency: 16 },
      deliveries,
      () => poller.notify(),
      metrics,
      logger,
    );
    return {
      module: WebhookDispatcherModule,
      imports: [service.health],
      providers: [
        ...service.providers,
        { provide: RunEventConsumer, useValue: consumer },
        { provide: DeliveryPoller, useValue: poller },
        { provide: WebhookDeliveryClient, useValue: client },
        DispatcherRuntime,
      ],
    };
  }
}
