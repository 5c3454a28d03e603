import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { batchMessagingDefinitions, crawlMessagingDefinitions, messagingTopology } from '@trawl/contracts';
import { createEgressAgent, EgressPolicy, parseHostMap } from '@trawl/egress';
import { ensureConsumer, ensureStream, MessagingConnection } from '@trawl/messaging';
import { createMetricsRegistry, HealthModule, Logger } from '@trawl/observability';
import { BATCH_TASK_CONSUMER_SETTINGS, BatchTaskConsumer, BatchTaskConsumerSettings } from './batch-tasks/batch-task.consumer';
import { FetchWorkerConfig } from './config';
import { CRAWL_PAGE_CONSUMER_SETTINGS, CrawlPageConsumer, CrawlPageConsumerSettings } from './crawl-pages/crawl-page.consumer';
import { CrawlPageFetcher } from './crawl-pages/crawl-page-fetcher';
import { CRAWL_PAGE_SETTINGS, CrawlPageService } from './crawl-pages/crawl-page.service';
import { CRAWL_STOPPED_SUBJECT, StoppedCrawls } from './crawl-pages/stopped-crawls';
import { BATCH_RUN_STOPPED_SUBJECT, StoppedRuns } from './batch-tasks/stopped-runs';
import { FetchRequestWiring, wireFetchRequests } from './fetch-requests/fetch-request.wiring';
import { TargetFetcher } from './fetch-requests/target-fetcher';
import { HttpEngine } from './page-fetch/http-engine';
import { WORKER_LOGGER } from './worker.logger';
import { WORKER_MESSAGING } from './worker.messaging';
import { WorkerMetrics } from './worker.metrics';

/** Injection token of the Fetch API's wiring (closed at shutdown). */
const FETCH_REQUEST_WIRING = Symbol('FETCH_REQUEST_WIRING');

/** Share of `SHUTDOWN_TIMEOUT_MS` that pages in flight may still use to finish. */
const DRAIN_SHARE = 0.5;
/** Share of `SHUTDOWN_TIMEOUT_MS` by which every message is settled; the rest closes connections. */
const SETTLE_SHARE = 0.75;

/**
 * The fetch worker: crawl pages and batch tasks from JetStream, Fetch API requests over streamed
 * request/reply, and the egress-checked engines they share. No database.
 * Connecting happens here, before Nest starts, so a bad NATS_URL or EGRESS_HOST_MAP fails the boot.
 */
@Module({})
export class FetchWorkerModule implements OnApplicationShutdown {
  constructor(
    @Inject(WORKER_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(FETCH_REQUEST_WIRING) private readonly fetchRequests: FetchRequestWiring,
  ) {}

  static async forRoot(config: FetchWorkerConfig, logger: Logger): Promise<DynamicModule> {
    const policy = new EgressPolicy({ hostMap: parseHostMap(config.EGRESS_HOST_MAP) });
    const topology = messagingTopology(config.NATS_PREFIX, { replicas: config.NATS_STREAM_REPLICAS });
    const messaging = await MessagingConnection.connect({ servers: config.NATS_URL, name: 'fetch-worker' });
    try {
      await provisionWorkerStreams(messaging, topology);
    } catch (error) {
      await messaging.close();
      throw error;
    }
    const registry = createMetricsRegistry('fetch-worker');
    const agent = createEgressAgent(policy);
    // One keep-alive pool for every page this process fetches, crawl pages and Fetch API alike.
    const http = new HttpEngine({ policy, agent });
    const fetchRequests: FetchRequestWiring = wireFetchRequests({
      config,
      policy,
      agent,
      http,
      messaging,
      topology,
      registry,
      logger,
      drainShare: DRAIN_SHARE,
      settleShare: SETTLE_SHARE,
    });
    const consumerSettings: CrawlPageConsumerSettings = {
      topology,
      concurrency: config.WORKER_CONCURRENCY,
      drainMs: Math.floor(config.SHUTDOWN_TIMEOUT_MS * DRAIN_SHARE),
      stopDeadlineMs: Math.floor(config.SHUTDOWN_TIMEOUT_MS * SETTLE_SHARE),
    };
    const batchSettings: BatchTaskConsumerSettings = { ...consumerSettings, concurrency: config.BATCH_CONCURRENCY };
    return {
      module: FetchWorkerModule,
      imports: [HealthModule.register({ registry, checks: [{ name: 'nats', check: () => messaging.isConnected() }] })],
      providers: [
        { provide: WORKER_MESSAGING, useValue: messaging },
        { provide: WORKER_LOGGER, useValue: logger },
        { provide: WorkerMetrics, useValue: new WorkerMetrics(registry) },
        { provide: CRAWL_PAGE_SETTINGS, useValue: {} },
        { provide: CRAWL_PAGE_CONSUMER_SETTINGS, useValue: consumerSettings },
        { provide: CRAWL_STOPPED_SUBJECT, useValue: consumerSettings.topology.subjects.crawlStopped },
        { provide: BATCH_TASK_CONSUMER_SETTINGS, useValue: batchSettings },
        { provide: BATCH_RUN_STOPPED_SUBJECT, useValue: topology.subjects.batchRunStopped },
        { provide: FETCH_REQUEST_WIRING, useValue: fetchRequests },
        ...fetchRequests.providers,
        {
          // Crawl pages go through the Fetch API's tiers (adaptive stealth), billed by the same rules.
          provide: CrawlPageFetcher,
          useFactory: (target: TargetFetcher, metrics: WorkerMetrics) =>
            new CrawlPageFetcher({ target, pageTimeoutMs: config.PAGE_TIMEOUT_MS, maxBodyBytes: config.MAX_BODY_BYTES, metrics }),
          inject: [TargetFetcher, WorkerMetrics],
        },
        CrawlPageService,
        CrawlPageConsumer,
        StoppedCrawls,
        StoppedRuns,
        BatchTaskConsumer,
      ],
    };
  }

  /** Runs after every consumer has stopped (beforeApplicationShutdown), so nothing publishes any more. */
  async onApplicationShutdown(): Promise<void> {
    await this.fetchRequests.close();
    await this.messaging.close();
  }
}

/**
 * The streams a worker reads from and writes to, and its durable consumers, created or updated to
 * the shared definitions (idempotent, so every replica and the coordinator may do it at boot).
 */
async function provisionWorkerStreams(messaging: MessagingConnection, topology: ReturnType<typeof messagingTopology>): Promise<void> {
  const definitions = crawlMessagingDefinitions(topology);
  const streams = new Set([topology.streams.crawlWork, topology.streams.crawlResults]);
  for (const stream of definitions.streams.filter((s) => streams.has(s.name))) await ensureStream(messaging.jsm, stream);
  for (const consumer of definitions.consumers.filter((c) => c.durable === topology.consumers.fetchWorkers)) {
    await ensureConsumer(messaging.jsm, consumer);
  }
  const batch = batchMessagingDefinitions(topology);
  for (const stream of batch.streams) await ensureStream(messaging.jsm, stream);
  for (const consumer of batch.consumers.filter((c) => c.durable === topology.consumers.batchWorkers)) {
    await ensureConsumer(messaging.jsm, consumer);
  }
}
