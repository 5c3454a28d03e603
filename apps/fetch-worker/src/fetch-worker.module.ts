import { DynamicModule, Module } from '@nestjs/common';
import { createEgressAgent, EgressPolicy, parseHostMap } from '@trawl/egress';
import { ByteBudget } from '@trawl/messaging';
import { Logger } from '@trawl/observability';
import { connectService, stopDeadlinesOf } from '@trawl/service-kit';
import { BATCH_TASK_CONSUMER_SETTINGS, BatchTaskConsumer, BatchTaskConsumerSettings } from './batch-tasks/batch-task.consumer';
import { FetchWorkerConfig } from './config';
import { CRAWL_PAGE_CONSUMER_SETTINGS, CrawlPageConsumer, CrawlPageConsumerSettings } from './crawl-pages/crawl-page.consumer';
import { CrawlPageFetcher } from './crawl-pages/crawl-page-fetcher';
import { CRAWL_PAGE_SETTINGS, CrawlPageService } from './crawl-pages/crawl-page.service';
import { CRAWL_STOPPED_SUBJECT, StoppedCrawls } from './crawl-pages/stopped-crawls';
import { BATCH_RUN_STOPPED_SUBJECT, StoppedRuns } from './batch-tasks/stopped-runs';
import { FetchRequestWiring, wireFetchRequests } from './fetch-requests/fetch-request.wiring';
import { PAGE_COPIES } from './fetch-requests/fetch-request.service';
import type { PageCopyCache } from './page-copies';
import { TargetFetcher } from './target-fetch/target-fetcher';
import { IdentityGenerator, parseEngineVersion, readEngineVersion, type EngineVersion } from './identity';
import { EgressProxy } from './egress-proxy';
import { ChromeTlsClient } from './page-fetch/chrome-tls-client';
import { HttpEngine } from './page-fetch/http-engine';
import { WorkerMetrics } from './worker.metrics';
import { MapMetrics } from './site-map/map.metrics';
import { MAP_REQUEST_SERVER_SETTINGS, MapRequestServer, type MapRequestServerSettings } from './site-map/map-request.server';
import { SiteMapper } from './site-map/site-mapper';
import { RobotsCache } from './site-map/robots-cache';
import { FETCH_REQUEST_WIRING, WorkerRuntime } from './worker.runtime';

/**
 * The Chrome version identities claim: CHROME_VERSION, else the one of the Chromium that renders.
 *
 * @throws Error naming both variables when neither gives one (a boot failure, not a first-request one).
 */
async function engineVersion(config: FetchWorkerConfig): Promise<EngineVersion> {
  if (config.CHROME_VERSION) return parseEngineVersion(config.CHROME_VERSION)!;
  try {
    return await readEngineVersion(config.CHROMIUM_PATH);
  } catch (error) {
    throw new Error(
      `CHROMIUM_PATH ${config.CHROMIUM_PATH} gave no Chrome version; install Chromium, or set CHROME_VERSION on a worker without one`,
      {
        cause: error,
      },
    );
  }
}

/**
 * The fetch worker: crawl pages and batch tasks from JetStream, Fetch API requests over streamed
 * request/reply, and the egress-checked engines they share. No database.
 * Connecting happens here, before Nest starts, so a bad NATS_URL or EGRESS_HOST_MAP fails the boot.
 */
@Module({})
export class FetchWorkerModule {
  static async forRoot(config: FetchWorkerConfig, logger: Logger): Promise<DynamicModule> {
    const policy = new EgressPolicy({ hostMap: parseHostMap(config.EGRESS_HOST_MAP) });
    // No database (ARCHITECTURE §1): a worker only reads and writes JetStream.
    const service = await connectService({
      name: 'fetch-worker',
      config,
      logger,
      messaging: (topology) => ({
        streams: [
          topology.streams.crawlWork,
          topology.streams.crawlResults,
          topology.streams.crawlBodies,
          topology.streams.batchWork,
          topology.streams.batchResults,
          topology.streams.batchBodies,
        ],
        consumers: [topology.consumers.fetchWorkers, topology.consumers.batchWorkers],
      }),
    });
    const { topology, messaging, registry } = service;
    const identities = new IdentityGenerator(await engineVersion(config));
    // Loads the fingerprint dataset now (~160 ms) rather than in the first request.
    identities.warm();
    const agent = createEgressAgent(policy);
    // One keep-alive pool for every page this process fetches, crawl pages and Fetch API alike; https
    // through a TLS client that speaks as Chrome does, its connections through an egress proxy of its own.
    const tls: ChromeTlsClient = new ChromeTlsClient({
      proxy: new EgressProxy({ policy, onFailure: (failure) => tls.recordFailure(failure) }),
      extraCaFile: config.TLS_EXTRA_CA_FILE,
    });
    const http = new HttpEngine({ policy, agent, tls });
    const stopDeadlines = stopDeadlinesOf(config.SHUTDOWN_TIMEOUT_MS);
    const fetchRequests: FetchRequestWiring = wireFetchRequests({
      config,
      policy,
      agent,
      http,
      identities,
      messaging,
      topology,
      registry,
      logger,
      stopDeadlines,
    });
    const consumerSettings: CrawlPageConsumerSettings = {
      topology,
      concurrency: config.WORKER_CONCURRENCY,
      drainMs: stopDeadlines.drainMs,
      stopDeadlineMs: stopDeadlines.settleMs,
      // One budget for the process: batch bodies and crawl HTML spill from the same memory.
      spillBudget: new ByteBudget(config.SPILL_BUDGET_BYTES),
      resultLingerMs: config.RESULT_LINGER_MS,
    };
    const batchSettings: BatchTaskConsumerSettings = {
      ...consumerSettings,
      concurrency: config.BATCH_CONCURRENCY,
      resultLingerMs: config.BATCH_RESULT_LINGER_MS,
    };
    // One copy of each site's robots.txt for the worker's crawls and maps.
    const robots = new RobotsCache({ http, identities });
    const mapSettings: MapRequestServerSettings = { topology, capacity: config.MAP_CONCURRENCY, stopDeadlineMs: stopDeadlines.settleMs };
    return {
      module: FetchWorkerModule,
      imports: [service.health],
      providers: [
        ...service.providers,
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
          // Crawls with max_age read and keep the same copies as the Fetch API (their own scope).
          useFactory: (target: TargetFetcher, metrics: WorkerMetrics, copies: PageCopyCache) =>
            new CrawlPageFetcher({ target, pageTimeoutMs: config.PAGE_TIMEOUT_MS, maxBodyBytes: config.MAX_BODY_BYTES, metrics, copies }),
          inject: [TargetFetcher, WorkerMetrics, PAGE_COPIES],
        },
        { provide: MAP_REQUEST_SERVER_SETTINGS, useValue: mapSettings },
        { provide: RobotsCache, useValue: robots },
        {
          provide: SiteMapper,
          useValue: new SiteMapper({ http, identities, robots, maxPageBytes: config.MAX_BODY_BYTES, metrics: new MapMetrics(registry) }),
        },
        MapRequestServer,
        CrawlPageService,
        CrawlPageConsumer,
        StoppedCrawls,
        StoppedRuns,
        BatchTaskConsumer,
        WorkerRuntime,
      ],
    };
  }
}
