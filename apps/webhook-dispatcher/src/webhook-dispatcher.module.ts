import { DynamicModule, Module } from '@nestjs/common';
import { webhookConsumerDefinition } from '@trawl/contracts';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { Logger } from '@trawl/observability';
import { connectService, stopDeadlinesOf } from '@trawl/service-kit';
import { SigningKeysRepository, WebhookDeliveryClient } from '@trawl/webhooks';
import { WebhookDispatcherConfig } from './config';
import { DeliveryPoller } from './deliveries/delivery-poller';
import { DeliveryRepository } from './deliveries/delivery.repository';
import { DeliveryService } from './deliveries/delivery.service';
import { DELIVERY_SETTINGS, DeliverySettings } from './deliveries/delivery.settings';
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
    if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: signed webhooks cannot be delivered');
    const settings: DeliverySettings = {
      topology: service.topology,
      box: config.SECRETS_KEY,
      schedule: {
        baseMs: config.WEBHOOK_RETRY_BASE_MS,
        maxDelayMs: config.WEBHOOK_RETRY_MAX_DELAY_MS,
        windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
      },
      attemptTimeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
      concurrency: config.WEBHOOK_CONCURRENCY,
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      stopDeadlines: stopDeadlinesOf(config.SHUTDOWN_TIMEOUT_MS),
    };
    return {
      module: WebhookDispatcherModule,
      imports: [service.health],
      providers: [
        ...service.providers,
        { provide: DELIVERY_SETTINGS, useValue: settings },
        { provide: DispatcherMetrics, useValue: new DispatcherMetrics(service.registry) },
        {
          provide: WebhookDeliveryClient,
          useValue: new WebhookDeliveryClient({
            policy: new EgressPolicy({ hostMap: parseHostMap(config.EGRESS_HOST_MAP) }),
            timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
          }),
        },
        { provide: SigningKeysRepository, useValue: new SigningKeysRepository() },
        DeliveryRepository,
        DeliveryService,
        DeliveryPoller,
        RunEventConsumer,
        DispatcherRuntime,
      ],
    };
  }
}
