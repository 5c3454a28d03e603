import { bigSitePath, expected, FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { ApiClient, BENCHMARK_CLIENT, Platform } from '../support/platform';
import { scrapeTotals } from '../../bench/service-metrics';
import { waitFor } from '@trawl/testing';

/**
 * Pages of the crawl and tasks of the batch. `make test` runs 10,000 of each (~45 s on two cores);
 * `make scale-out` runs the 100,000 with `TRAWL_SCALE_OUT_SIZE=100000`.
 */
const SIZE = Number(process.env.TRAWL_SCALE_OUT_SIZE ?? 10_000);
// Generous: a shared, loaded machine; at ~500 pages/s a 100,000-page crawl takes ~4 minutes.
const RUN_TIMEOUT_MS = Math.max(240_000, SIZE * 12);
// A batch task's target differs from the crawl's page by its query, so the site's hits tell them apart.
const BATCH_QUERY = '?ms=1';
const REPLICAS = { 'crawl-coordinator': 2, scheduler: 2, 'fetch-worker': 2 } as const;

/**
 * Scale-out: two crawl coordinators, two schedulers and two fetch workers, as a cluster would run
 * them, share one big crawl and one big batch run side by side, and each page and each task is
 * fetched and returned exactly once, with every replica doing part of the work.
 */
describe(`Two of every worker service: a ${SIZE}-page crawl and a ${SIZE}-task batch, exactly (e2e)`, () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;

  beforeAll(async () => {
    // Pages 0…SIZE-1: the crawl fetches them all (max_pages is at most 100,000), and so do the tasks.
    web = await startFixtureWeb({ bigSitePages: SIZE });
    platform = new Platform('scale-out', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'crawl-coordinator', 'scheduler', 'fetch-worker'],
      replicas: REPLICAS,
      env: { all: { LOG_LEVEL: 'warn' }, 'fetch-worker': { WORKER_CONCURRENCY: '16', BATCH_CONCURRENCY: '32' } },
    });
    await platform.start();
    const tenant = await platform.createTenant({ concurrency: 64, max_active_jobs: 10, credits: 1_000_000_000 });
    // Answers are still checked by every other suite; 100 result pages need not be checked again.
    api = platform.client(tenant.api_key, BENCHMARK_CLIENT);
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  /** A counter of each replica of `service`, summed over its labels. */
  async function perReplica(service: keyof typeof REPLICAS, counter: string): Promise<number[]> {
    const instances = Array.from({ length: REPLICAS[service] }, (_, n) => (n === 0 ? service : `${service}-${n}`));
    return Promise.all(instances.map(async (instance) => (await scrapeTotals(platform.metricsUrl(instance)))[counter] ?? 0));
  }

  it(
    'fetches and returns every page and every task once, the work shared by every replica',
    async () => {
      const started = performance.now();
      const secondsSinceStart = () => ((performance.now() - started) / 1000).toFixed(0);
      const crawl = await api.startCrawl({ url: web.url('big.test', '/'), max_items: SIZE, max_pages: SIZE });
      expect(crawl.status).toBe(202);
      const tasks = Array.from({ length: SIZE }, (_, i) => ({
        url: web.url('big.test', `${bigSitePath(i)}${BATCH_QUERY}`),
        external_id: `task-${i}`,
      }));
      const job = await api.request('POST', '/v1/jobs', { type: 'regular', status: 'closed', service_params: {}, tasks });
      expect(job.status).toBe(SIZE < 10_000 ? 201 : 202); // 202: the task rows are still being written
      const jobId = job.body.job_id as string;

      const ended: Record<string, string> = {};
      const [crawled, run] = await Promise.all([
        api.waitUntilEnded(crawl.body.crawl_id, RUN_TIMEOUT_MS).finally(() => (ended.crawl = secondsSinceStart())),
        waitFor(
          async () => {
            const read = await api.request('GET', `/v1/jobs/${jobId}`);
            return ['completed', 'failed', 'stopped'].includes(read.body.latest_run?.status) && read.body.latest_run;
          },
          { timeoutMs: RUN_TIMEOUT_MS, intervalMs: 500, what: `job ${jobId}'s run to end` },
        ).finally(() => (ended.batch = secondsSinceStart())),
      ]);

      // The crawl: every page once, in the results and at the site.
      expect(crawled).toMatchObject({ status: 'completed', coverage: { items_found: SIZE - 1, pages_fetched: SIZE } });
      const items = await api.readAllResults(crawled.crawl_id, 10_000, 120_000); // throws on a URL returned twice
      expect(new Set(items.map((r) => r.url))).toEqual(new Set(expected.big.allItems(web.port, SIZE)));
      const crawlHits = Array.from({ length: SIZE }, (_, i) => web.hits('big.test', bigSitePath(i)));
      expect(crawlHits.filter((hits) => hits !== 1)).toEqual([]);

      // The batch: every task once, in the stats, the results and at the site.
      expect(run).toMatchObject({ status: 'completed', stats: { total: SIZE, completed: SIZE, successful: SIZE, failed: 0 } });
      const results = await api.readAllJobResults(jobId);
      expect(results).toHaveLength(SIZE);
      expect(new Set(results.map((r) => r.external_id)).size).toBe(SIZE);
      expect(results.filter((r) => r.status !== 'successful')).toEqual([]);
      const taskHits = tasks.map((_, i) => web.hits('big.test', `${bigSitePath(i)}${BATCH_QUERY}`));
      expect(taskHits.filter((hits) => hits !== 1)).toEqual([]);

      // Shared: every replica did part of each kind of work, and together exactly all of it.
      const applied = await perReplica('crawl-coordinator', 'trawl_crawl_results_applied_total');
      const taskResults = await perReplica('scheduler', 'trawl_batch_task_results_total');
      const pagesFetched = await perReplica('fetch-worker', 'trawl_worker_pages_total');
      const tasksFetched = await perReplica('fetch-worker', 'trawl_worker_batch_tasks_total');
      for (const shares of [applied, taskResults, pagesFetched, tasksFetched]) expect(shares.every((n) => n > 0)).toBe(true);
      expect(pagesFetched.reduce((a, b) => a + b)).toBe(SIZE);
      expect(tasksFetched.reduce((a, b) => a + b)).toBe(SIZE);
      process.stdout.write(
        `scale-out ${SIZE}: crawl ended after ${ended.crawl} s, batch after ${ended.batch} s (side by side); pages applied per coordinator ${applied.join('/')}, task results per scheduler ` +
          `${taskResults.join('/')}, pages per worker ${pagesFetched.join('/')}, tasks per worker ${tasksFetched.join('/')}\n`,
      );
    },
    RUN_TIMEOUT_MS + 300_000,
  );
});
