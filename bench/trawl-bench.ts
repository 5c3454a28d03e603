import { BENCHMARK_CLIENT, Platform, type ServiceName } from '../test/support/platform';
import type { FixtureWebProcess } from './fixture-web-process';
import { CRAWL_LIMITS } from '@trawl/contracts/http';
import { WrongCrawlError, type CrawlerMeasurement, type ProgressMark } from './measurement';
import type { BenchOptions } from './options';
import { groupPssBytes, processesNamed } from './process-stats';
import { GroupCpuMeter, MachineCpuMeter, ResourceMeter, type ProcessUsage } from './resource-meter';
import { meanDepth, sampleQueueDepth } from './queue-depth';
import { costPer, storageSnapshot } from './storage-cost';
import { meanOf, sampleGauges, scrapeTotals, totalsDelta, type MetricTotals } from './service-metrics';

/** The gateway serves the API; the coordinator and one worker do the crawl. Scheduler and webhooks sit idle in a crawl. */
const CRAWL_SERVICES: readonly ServiceName[] = ['gateway', 'crawl-coordinator', 'fetch-worker'];
const STATUS_POLL_MS = 100;
const PROGRESS_EVERY_MS = 5_000;
interface CrawlView {
  crawl_id: string;
  status: string;
  coverage: { pages_fetched: number; pages_failed: number; items_found: number };
  created_at?: string;
  finished_at?: string;
  error?: unknown;
}

/** A running Trawl (gateway, coordinator, one fetch worker) with its own database and NATS prefix. */
export interface TrawlUnderTest {
  platform: Platform;
  apiKey: string;
  pids: { coordinator: number; worker: number; gateway: number };
  env: Record<string, string>;
}

function pidOf(platform: Platform, service: ServiceName): number {
  const pid = platform.pid(service);
  if (pid === undefined) throw new Error(`no running process of ${service}`);
  return pid;
}

/**
 * Starts the services the crawl needs, tuned to fetch `options.concurrency` pages at a time, with
 * `extraEnv` on top (the `--variant`).
 */
export async function startTrawl(
  web: FixtureWebProcess,
  options: BenchOptions,
  extraEnv: Record<string, string> = {},
): Promise<TrawlUnderTest> {
  const env: Record<string, string> = {
    LOG_LEVEL: options.logLevel,
    WORKER_CONCURRENCY: String(options.concurrency),
    ...options.serviceEnv,
    ...extraEnv,
  };
  const platform = new Platform(Object.keys(extraEnv).length > 0 ? 'bench-variant' : 'bench', {
    hostMap: web.hostMap,
    services: CRAWL_SERVICES,
    env: Object.fromEntries(CRAWL_SERVICES.map((service) => [service, env])),
  });
  try {
    await platform.start();
    const { api_key } = await platform.createTenant();
    return {
      platform,
      apiKey: api_key,
      pids: {
        coordinator: pidOf(platform, 'crawl-coordinator'),
        worker: pidOf(platform, 'fetch-worker'),
        gateway: pidOf(platform, 'gateway'),
      },
      env,
    };
  } catch (error) {
    await platform.stop().catch(() => undefined);
    throw error;
  }
}

/** Starts a crawl; limits above the API's bound are cut to it (a 100,000-page site then ends on its last page). */
async function startCrawl(trawl: TrawlUnderTest, url: string, limits: { maxPages: number; maxItems: number }): Promise<string> {
  const bound = (limit: number) => Math.min(limit, CRAWL_LIMITS.maxLimit);
  const res = await trawl.platform
    .client(trawl.apiKey, BENCHMARK_CLIENT)
    .startCrawl({ url, max_items: bound(limits.maxItems), max_pages: bound(limits.maxPages) });
  if (res.status !== 202) throw new Error(`POST /v1/crawls answered ${res.status}: ${res.text}`);
  return (res.body as CrawlView).crawl_id;
}

async function readCrawl(trawl: TrawlUnderTest, id: string): Promise<CrawlView> {
  const res = await trawl.platform.client(trawl.apiKey, BENCHMARK_CLIENT).getCrawl(id, '?limit=1');
  if (res.status !== 200) throw new Error(`GET /v1/crawls/${id} answered ${res.status}: ${res.text}`);
  return res.body as CrawlView;
}

/** Crawls `options.warmupPages` pages so the measured crawl pays no JIT, pool or cache warm-up. */
export async function warmUpTrawl(trawl: TrawlUnderTest, web: FixtureWebProcess, options: BenchOptions): Promise<void> {
  if (options.warmupPages === 0) return;
  // Limited by max_pages, never max_items: a crawl that ends on max_items leaves the pages it already
  // dispatched in the work queue, and the worker would fetch them during the measured crawl.
  const id = await startCrawl(trawl, web.bigSiteUrl, { maxPages: options.warmupPages, maxItems: options.pages + 10 });
  const crawl = (await trawl.platform
    .client(trawl.apiKey, BENCHMARK_CLIENT)
    .waitUntilEnded(id, options.timeoutSeconds * 1000)) as CrawlView;
  if (crawl.status !== 'completed')
    throw new WrongCrawlError(`Trawl warm-up crawl ended "${crawl.status}": ${JSON.stringify(crawl.error ?? crawl.coverage)}`);
}

/** Each service's highest sampled RSS from `fromMs` (since the meter started) on. */
function peakAfter(usage: Record<string, ProcessUsage>, fromMs: number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(usage).map(([role, { samples }]) => [
      role,
      Math.max(0, ...samples.filter((s) => s.atMs >= fromMs).map((s) => s.rssBytes)),
    ]),
  );
}

async function scrapeServices(trawl: TrawlUnderTest): Promise<{ coordinator: MetricTotals; worker: MetricTotals }> {
  const [coordinator, worker] = await Promise.all([
    scrapeTotals(trawl.platform.metricsUrl('crawl-coordinator')),
    scrapeTotals(trawl.platform.metricsUrl('fetch-worker')),
  ]);
  return { coordinator, worker };
}

/**
 * Reads the crawl every 100 ms until it is no longer running; reports progress on stderr every 5 s
 * and each read's `pages_fetched` to `onProgress`. Fails after `options.timeoutSeconds`.
 */
async function pollUntilEnded(
  trawl: TrawlUnderTest,
  id: string,
  startedAt: number,
  options: BenchOptions,
  onProgress: (pagesFetched: number) => void,
): Promise<CrawlView> {
  const deadline = startedAt + options.timeoutSeconds * 1000;
  let reportedAt = startedAt;
  for (;;) {
    const crawl = await readCrawl(trawl, id);
    if (crawl.status !== 'running') return crawl;
    onProgress(crawl.coverage.pages_fetched);
    if (performance.now() - reportedAt >= PROGRESS_EVERY_MS) {
      reportedAt = performance.now();
      const elapsed = (reportedAt - startedAt) / 1000;
      process.stderr.write(
        `trawl: ${crawl.coverage.pages_fetched} pages in ${elapsed.toFixed(0)} s (${(crawl.coverage.pages_fetched / elapsed).toFixed(0)} pages/s)\n`,
      );
    }
    if (performance.now() > deadline) {
      throw new WrongCrawlError(`Trawl crawl ${id} still running after ${options.timeoutSeconds} s: ${JSON.stringify(crawl.coverage)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
  }
}

/**
 * The measured Trawl crawl of the whole generated site: from the POST to the first read that says
 * the crawl is no longer running (polled every 100 ms), with the coordinator's and worker's memory
 * sampled every 250 ms and their CPU time, Postgres's and NATS's, measured over the crawl.
 */
export async function measureTrawl(
  trawl: TrawlUnderTest,
  web: FixtureWebProcess,
  options: BenchOptions,
  crawler: 'Trawl' | 'Trawl (variant)' = 'Trawl',
): Promise<CrawlerMeasurement> {
  const { pids } = trawl;
  const metricsBefore = await scrapeServices(trawl);
  const meter = new ResourceMeter({ coordinator: pids.coordinator, worker: pids.worker, gateway: pids.gateway, fixtureWeb: web.pid });
  const postgres = new GroupCpuMeter(() => processesNamed('postgres'));
  const nats = new GroupCpuMeter(() => processesNamed('nats-server'));
  const machine = new MachineCpuMeter();
  const marks = [25, 50, 75].map((percent) => ({ percent, at: Math.ceil((options.pages * percent) / 100) }));
  const progress: ProgressMark[] = [];
  const memoryNow = () => ({ ...meter.current(), postgres: groupPssBytes(processesNamed('postgres')) });
  const storageBefore = await storageSnapshot(trawl.platform.databaseUrl, trawl.platform.prefix);

  const queues = await sampleQueueDepth(trawl.platform.prefix, options.sampleMs);
  // A worker below its concurrency while the coordinator has plenty in flight means pages wait in
  // between (JetStream, intake), not in fetching.
  const inFlight = sampleGauges(
    {
      coordinator: { metricsUrl: trawl.platform.metricsUrl('crawl-coordinator'), gauge: 'trawl_crawl_pages_in_flight' },
      worker: { metricsUrl: trawl.platform.metricsUrl('fetch-worker'), gauge: 'trawl_worker_pages_in_flight' },
    },
    options.sampleMs,
  );
  // With --profile, the services' profiles start over here: only the measured crawl is in them.
  if (options.profileDir) Object.values(pids).forEach((pid) => process.kill(pid, 'SIGUSR2'));
  meter.start();
  postgres.start();
  nats.start();
  machine.start();
  const startedAt = performance.now();
  let id: string;
  let crawl: CrawlView;
  try {
    id = await startCrawl(trawl, web.bigSiteUrl, { maxPages: options.pages + 10, maxItems: options.pages + 10 });
    crawl = await pollUntilEnded(trawl, id, startedAt, options, (fetched) => {
      while (marks.length > 0 && fetched >= marks[0].at)
        progress.push({ percent: marks.shift()!.percent, atSeconds: (performance.now() - startedAt) / 1000, rssBytes: memoryNow() });
    });
  } catch (error) {
    meter.stop();
    await Promise.all([inFlight.stop(), queues.stop()]);
    throw error;
  }
  const seconds = (performance.now() - startedAt) / 1000;
  progress.push({ percent: 100, atSeconds: seconds, rssBytes: memoryNow() });
  const usage = meter.stop();
  const cpuSeconds = {
    coordinator: usage.coordinator.cpuSeconds,
    worker: usage.worker.cpuSeconds,
    gateway: usage.gateway.cpuSeconds,
    fixtureWeb: usage.fixtureWeb.cpuSeconds,
    postgres: postgres.stop(),
    nats: nats.stop(),
    wholeMachine: machine.stop(),
  };
  const inFlightSamples = await inFlight.stop();
  const queueSamples = await queues.stop();
  const metricsAfter = await scrapeServices(trawl);
  const storage = costPer(
    storageBefore,
    await storageSnapshot(trawl.platform.databaseUrl, trawl.platform.prefix),
    crawl.coverage.pages_fetched,
  );

  const workerMetrics = totalsDelta(metricsBefore.worker, metricsAfter.worker);
  // Little's law: total time pages spent loading ÷ wall time = mean pages loading at once.
  const meanConcurrency = (workerMetrics.trawl_worker_fetch_seconds_sum ?? 0) / seconds;
  const serverSeconds =
    crawl.created_at && crawl.finished_at ? (Date.parse(crawl.finished_at) - Date.parse(crawl.created_at)) / 1000 : undefined;
  const { pages_fetched, pages_failed, items_found } = crawl.coverage;
  return {
    crawler,
    pages: pages_fetched - pages_failed,
    failedPages: pages_failed,
    seconds,
    pagesPerSecond: (pages_fetched - pages_failed) / seconds,
    peakRssBytes: { coordinator: usage.coordinator.peakRssBytes, worker: usage.worker.peakRssBytes },
    progress,
    cpuSeconds,
    details: {
      crawlId: id,
      status: crawl.status,
      error: crawl.error,
      itemsFound: items_found,
      meanConcurrency,
      concurrency: Number(trawl.env.WORKER_CONCURRENCY),
      sampleMs: options.sampleMs,
      meanInFlight: { coordinator: meanOf(inFlightSamples.coordinator), worker: meanOf(inFlightSamples.worker) },
      inFlightSamples,
      meanQueueDepth: meanDepth(queueSamples),
      queueSamples,
      serverSeconds,
      storagePerPage: storage,
      env: trawl.env,
      metrics: {
        coordinator: totalsDelta(metricsBefore.coordinator, metricsAfter.coordinator),
        worker: workerMetrics,
      },
      sampledPeakRssBytes: { coordinator: usage.coordinator.sampledPeakRssBytes, worker: usage.worker.sampledPeakRssBytes },
      peakRssAfterQuarterBytes: peakAfter(usage, (progress.find((p) => p.percent === 25)?.atSeconds ?? 0) * 1000),
      rssSamples: {
        coordinator: usage.coordinator.samples.map((s) => [s.atMs, s.rssBytes]),
        worker: usage.worker.samples.map((s) => [s.atMs, s.rssBytes]),
      },
    },
  };
}
