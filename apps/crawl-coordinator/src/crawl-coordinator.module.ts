import { DynamicModule, Module } from '@nestjs/common';
import { crawlMessagingDefinitions, messagingTopology } from '@trawl/contracts';
import { ensureConsumer, ensureStream, MessagingConnection } from '@trawl/messaging';
import { createDataSource, createPool, Database, SchemaReadiness } from '@trawl/persistence';
import { createMetricsRegistry, HealthModule, Logger } from '@trawl/observability';
import { CoordinatorConfig } from './config';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from './coordinator.settings';
import { CoordinatorMetrics } from './coordinator.metrics';
import { COORDINATOR_LOGGER } from './coordinator.logger';
import { MESSAGING } from './messaging/coordinator-messaging';
import { CoordinatorRuntime, OUTBOX_POOL } from './coordinator.runtime';
import { FrontierRepository } from './frontier/frontier.repository';
import { DispatcherService } from './frontier/dispatcher.service';
import { PageResultRepository } from './page-results/page-result.repository';
import { PageResultService } from './page-results/page-result.service';
import { PageResultConsumer } from './page-results/page-result.consumer';
import { CrawlLifecycleRepository } from './crawl-lifecycle/crawl-lifecycle.repository';
import { CrawlLifecycleService } from './crawl-lifecycle/crawl-lifecycle.service';
import { ReconcilerService } from './crawl-lifecycle/reconciler.service';

/** Connections first (so a bad DATABASE_URL or NATS_URL fails the boot), then the crawl loops. */
@Module({})
export class CrawlCoordinatorModule {
  static async forRoot(config: CoordinatorConfig, logger: Logger): Promise<DynamicModule> {
    const topology = messagingTopology(config.NATS_PREFIX, { replicas: config.NATS_STREAM_REPLICAS });
    const dataSource = await createDataSource({
      url: config.DATABASE_URL,
      poolSize: config.DB_POOL_SIZE,
      applicationName: 'trawl-crawl-coordinator',
    }).initialize();
    const db = new Database(dataSource, (error) => logger.warn({ err: error }, 'idle database connection lost'));
    const schema = new SchemaReadiness(db);
    const messaging = await MessagingConnection.connect({ servers: config.NATS_URL, name: 'crawl-coordinator' });
    const definitions = crawlMessagingDefinitions(topology);
    for (const stream of definitions.streams) await ensureStream(messaging.jsm, stream);
    for (const consumer of definitions.consumers) await ensureConsumer(messaging.jsm, consumer);
    const outboxPool = createPool({
      url: config.DATABASE_URL,
      max: 2,
      applicationName: 'trawl-crawl-coordinator-outbox',
      onError: (error) => logger.warn({ err: error }, 'idle outbox connection lost'),
    });
    const registry = createMetricsRegistry('crawl-coordinator');
    const settings: CoordinatorSettings = {
      topology,
      dispatchWindow: config.DISPATCH_WINDOW,
      dispatchPerCrawl: config.DISPATCH_PER_CRAWL,
      leaseMs: config.LEASE_MS,
      maxAttempts: config.MAX_ATTEMPTS,
      stopWindowMs: config.STOP_WINDOW_MS,
      reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
      dispatchPollMs: config.DISPATCH_POLL_MS,
      resultBatch: config.RESULT_BATCH,
    };
    return {
      module: CrawlCoordinatorModule,
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
      providers: [
        { provide: Database, useValue: db },
        { provide: MESSAGING, useValue: messaging },
        { provide: OUTBOX_POOL, useValue: outboxPool },
        { provide: COORDINATOR_SETTINGS, useValue: settings },
        { provide: COORDINATOR_LOGGER, useValue: logger },
        { provide: CoordinatorMetrics, useValue: new CoordinatorMetrics(registry) },
        FrontierRepository,
        DispatcherService,
        PageResultRepository,
        PageResultService,
        PageResultConsumer,
        CrawlLifecycleRepository,
        CrawlLifecycleService,
        ReconcilerService,
        CoordinatorRuntime,
      ],
    };
  }
}
