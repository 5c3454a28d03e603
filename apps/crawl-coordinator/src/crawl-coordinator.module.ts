import { DynamicModule, Module } from '@nestjs/common';
import { createPool } from '@trawl/persistence';
import { Logger } from '@trawl/observability';
import { connectService, stopDeadlinesOf } from '@trawl/service-kit';
import { CrawlCoordinatorConfig } from './config';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from './coordinator.settings';
import { CoordinatorMetrics } from './coordinator.metrics';
import { CoordinatorRuntime, OUTBOX_POOL } from './coordinator.runtime';
import { FrontierRepository } from './frontier/frontier.repository';
import { DispatcherService } from './frontier/dispatcher.service';
import { PageResultRepository } from './page-results/page-result.repository';
import { KnownFrontierKeys } from './page-results/known-frontier-keys';
import { FrontierIntake } from './page-results/frontier-intake';
import { PageResultService } from './page-results/page-result.service';
import { PageResultConsumer } from './page-results/page-result.consumer';
import { CrawlLifecycleRepository } from './crawl-lifecycle/crawl-lifecycle.repository';
import { CrawlLifecycleService } from './crawl-lifecycle/crawl-lifecycle.service';
import { ReconcilerService } from './crawl-lifecycle/reconciler.service';
import { SEEDER_RPC, SitemapSeeder } from './sitemaps/sitemap-seeder.service';
import { SitemapsRepository } from './sitemaps/sitemaps.repository';
import { StreamedRpcClient } from '@trawl/messaging';

/** Connections first (so a bad DATABASE_URL or NATS_URL fails the boot), then the crawl loops. */
@Module({})
export class CrawlCoordinatorModule {
  static async forRoot(config: CrawlCoordinatorConfig, logger: Logger): Promise<DynamicModule> {
    const service = await connectService({
      name: 'crawl-coordinator',
      config,
      logger,
      database: { url: config.DATABASE_URL, poolSize: config.DB_POOL_SIZE },
      messaging: (topology) => ({
        streams: [topology.streams.crawlWork, topology.streams.crawlResults, topology.streams.crawlBodies, topology.streams.events],
        consumers: [topology.consumers.fetchWorkers, topology.consumers.crawlCoordinators],
      }),
    });
    // The outbox relay's own small pool, apart from the service's.
    const outboxPool = createPool({
      url: config.DATABASE_URL,
      max: 2,
      applicationName: 'trawl-crawl-coordinator-outbox',
      onError: (error) => logger.warn({ err: error }, 'idle outbox connection lost'),
    });
    const settings: CoordinatorSettings = {
      topology: service.topology,
      dispatchWindow: config.DISPATCH_WINDOW,
      dispatchPerCrawl: config.DISPATCH_PER_CRAWL,
      pagesPerTaskMessage: config.CRAWL_TASK_GROUP_SIZE,
      leaseMs: config.LEASE_MS,
      maxAttempts: config.MAX_ATTEMPTS,
      stopWindowMs: config.STOP_WINDOW_MS,
      reconcileIntervalMs: config.RECONCILE_INTERVAL_MS,
      dispatchPollMs: config.DISPATCH_POLL_MS,
      resultBatch: config.RESULT_BATCH,
      resultWaitMs: config.RESULT_WAIT_MS,
      sitemapPollMs: config.SITEMAP_POLL_MS,
      sitemapTimeoutMs: config.SITEMAP_TIMEOUT_MS,
      stopDeadlines: stopDeadlinesOf(config.SHUTDOWN_TIMEOUT_MS),
    };
    return {
      module: CrawlCoordinatorModule,
      imports: [service.health],
      providers: [
        ...service.providers,
        { provide: OUTBOX_POOL, useValue: outboxPool },
        { provide: COORDINATOR_SETTINGS, useValue: settings },
        { provide: CoordinatorMetrics, useValue: new CoordinatorMetrics(service.registry) },
        { provide: KnownFrontierKeys, useValue: new KnownFrontierKeys(config.KNOWN_FRONTIER_KEYS) },
        FrontierRepository,
        DispatcherService,
        PageResultRepository,
        FrontierIntake,
        PageResultService,
        PageResultConsumer,
        CrawlLifecycleRepository,
        CrawlLifecycleService,
        ReconcilerService,
        SitemapsRepository,
        SitemapSeeder,
        { provide: SEEDER_RPC, useValue: new StreamedRpcClient(service.messaging.nc) },
        CoordinatorRuntime,
      ],
    };
  }
}
