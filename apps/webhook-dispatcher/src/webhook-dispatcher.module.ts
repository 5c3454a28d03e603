import { DynamicModule, Module } from '@nestjs/common';
import { crawlMessagingDefinitions, messagingTopology, webhookConsumerDefinition } from '@trawl/contracts';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { ensureConsumer, ensureStream, MessagingConnection } from '@trawl/messaging';
import { createMetricsRegistry, HealthModule, Logger } from '@trawl/observability';
import { createDataSource, Database, SchemaReadiness } from '@trawl/persistence';
import { SigningKeysRepository, WebhookDeliveryClient } from '@trawl/webhooks';
import { WebhookDispatcherConfig } from './config';
import { DeliveryPoller } from './deliveries/delivery-poller';
import { DeliveryRepository } from './deliveries/delivery.repository';
import { DeliveryService } from './deliveries/delivery.service';
import { RunEventConsumer } from './deliveries/run-event.consumer';
import { DispatcherMetrics } from './dispatcher.metrics';
import { DISPATCHER_PARTS, DispatcherParts, DispatcherRuntime } from './dispatcher.runtime';

/**
 * The webhook dispatcher: run events from the events stream become delivery
 * rows; due deliveries are claimed from Postgres, signed, sent and retried with backoff.
 */
@Module({})
export class WebhookDispatcherModule {
  static async forRoot(config: WebhookDispatcherConfig, logger: Logger): Promise<DynamicModule> {
    const dataSource = await createDataSource({
      url: config.DATABASE_URL,
      poolSize: config.DB_POOL_SIZE,
      applicationName: 'trawl-webhook-dispatcher',
    }).initialize();
    const db = new Database(dataSource, (error) => logger.warn({ err: error }, 'idle database connection lost'));
    const schema = new SchemaReadiness(db);
    const messaging = await MessagingConnection.connect({ servers: config.NATS_URL, name: 'webhook-dispatcher' });
    const topology = messagingTopology(config.NATS_PREFIX, { replicas: config.NATS_STREAM_REPLICAS });
    const events = crawlMessagingDefinitions(topology).streams.filter((s) => s.name === topology.streams.events);
    for (const stream of events) await ensureStream(messaging.jsm, stream);
    const consumerDefinition = webhookConsumerDefinition(topology);
    await ensureConsumer(messaging.jsm, consumerDefinition);

    const registry = createMetricsRegistry('webhook-dispatcher');
    const metrics = new DispatcherMetrics(registry);
    const client = new WebhookDeliveryClient({
      policy: new EgressPolicy({ hostMap: parseHostMap(config.EGRESS_HOST_MAP) }),
      timeoutMs: config.WEBHOOK_ATTEMPT_TIMEOUT_MS,
    });
    const service = new DeliveryService({
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
    metrics.measureBacklogWith(() => service.backlog());
    if (!config.SECRETS_KEY) logger.warn('SECRETS_KEY is not set: signed webhooks cannot be delivered');
    const poller = new DeliveryPoller(
      service,
      { concurrency: config.WEBHOOK_CONCURRENCY, pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS },
      logger,
    );
    const consumer = new RunEventConsumer(
      { js: messaging.js, stream: consumerDefinition.stream, durable: consumerDefinition.durable, concurrency: 16 },
      service,
      () => poller.notify(),
      metrics,
      logger,
    );
    const parts: DispatcherParts = { db, messaging, client, consumer, poller, logger };
    return {
      module: WebhookDispatcherModule,
      imports: [
        HealthModule.register({
          registry,
          checks: [
            { name: 'postgres', check: () => db.ping() },
            { name: 'nats', check: () => messaging.isConnected() },
            // Never migrated here (docs/operating.md, "Upgrades"): a schema behind the build is reported, not fixed.
            { name: 'schema', check: () => schema.check() },
          ],
        }),
      ],
      providers: [{ provide: DISPATCHER_PARTS, useValue: parts }, DispatcherRuntime],
    };
  }
}
