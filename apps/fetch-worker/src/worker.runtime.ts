import { Inject, Injectable } from '@nestjs/common';
import { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, ServiceRuntime } from '@trawl/service-kit';
import { BatchTaskConsumer } from './batch-tasks/batch-task.consumer';
import { StoppedRuns } from './batch-tasks/stopped-runs';
import { StoppedCrawls } from './crawl-pages/stopped-crawls';
import { CrawlPageConsumer } from './crawl-pages/crawl-page.consumer';
import { FetchRequestServer } from './fetch-requests/fetch-request.server';
import { MapRequestServer } from './site-map/map-request.server';
import type { FetchRequestWiring } from './fetch-requests/fetch-request.wiring';

/** Token of the Fetch API's wiring (`wireFetchRequests`): its browsers and proxies close when the loops have stopped. */
export const FETCH_REQUEST_WIRING = Symbol('FETCH_REQUEST_WIRING');

/**
 * Starts the worker's loops after boot: stop notices first (so a task of a crawl or run stopped
 * meanwhile is skipped), then crawl pages, batch tasks, Fetch API and Map API requests. On shutdown all
 * four drain at once, each within its share of `SHUTDOWN_TIMEOUT_MS` (finishing or handing back
 * what it holds), then the browsers and proxies close.
 */
@Injectable()
export class WorkerRuntime extends ServiceRuntime {
  constructor(
    private readonly crawlPages: CrawlPageConsumer,
    private readonly batchTasks: BatchTaskConsumer,
    private readonly fetchRequests: FetchRequestServer,
    private readonly mapRequests: MapRequestServer,
    private readonly stoppedCrawls: StoppedCrawls,
    private readonly stoppedRuns: StoppedRuns,
    @Inject(FETCH_REQUEST_WIRING) private readonly wiring: FetchRequestWiring,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected async startLoops(): Promise<void> {
    this.stoppedCrawls.start();
    this.stoppedRuns.start();
    this.fetchRequests.start();
    this.mapRequests.start();
    await Promise.all([this.crawlPages.start(), this.batchTasks.start()]);
    this.logger.info('fetch worker started');
  }

  protected async stopLoops(): Promise<void> {
    // At once, not one after the other: each drain has its own deadline within SHUTDOWN_TIMEOUT_MS.
    await Promise.all([this.crawlPages.stop(), this.batchTasks.stop(), this.fetchRequests.stop(), this.mapRequests.stop()]);
    this.stoppedCrawls.stop();
    this.stoppedRuns.stop();
    // Nothing fetches any more: the browsers, the egress proxy and upstream connections can go.
    await this.wiring.close();
  }
}
