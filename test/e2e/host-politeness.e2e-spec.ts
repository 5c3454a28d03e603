import { waitFor } from '@trawl/testing';
import { scrapeLabelled, scrapeTotals } from '../../bench/service-metrics';
import { FixtureWeb, fixtureHostMap, startFixtureWeb, THROTTLE_PAGE_COUNT } from '../fixtures/web';
import { callFetchApi } from '../support/fetch-api-call';
import { ApiClient, Platform } from '../support/platform';

const WORKERS = ['fetch-worker', 'fetch-worker-1'];
const HOST_CONCURRENCY = 2;
const HOST_RATE = 10;
/** busy.test's `/limited` answers 429 with this Retry-After, in seconds. */
const RETRY_AFTER_S = 3;

/**
 * Polite to the target across the whole cluster: two fetch workers share the per-host limits and a
 * 429's pause, whatever tenant or job the loads belong to. Only the public API; the fixture web
 * counts what each host received.
 */
describe('Per-host politeness across worker replicas (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;
  let apiKey: string;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    platform = new Platform('host-politeness', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'crawl-coordinator', 'fetch-worker'],
      replicas: { 'fetch-worker': 2 },
      env: { 'fetch-worker': { HOST_CONCURRENCY_LIMIT: String(HOST_CONCURRENCY), HOST_RATE_LIMIT: String(HOST_RATE), BROWSERS: '0' } },
    });
    await platform.start();
    const tenant = await platform.createTenant({ concurrency: 20, max_active_jobs: 10, credits: 100_000 });
    apiKey = tenant.api_key;
    api = platform.client(apiKey);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  beforeEach(() => web.resetHits());

  async function crawl(url: string) {
    const started = await api.startCrawl({ url, max_items: 100, max_pages: 100 });
    expect(started.status).toBe(202);
    const ended = await api.waitUntilEnded(started.body.crawl_id, 90_000);
    expect(ended).toMatchObject({ status: 'completed' });
    return ended;
  }

  /** Loads that waited for their host, by reason, summed over both workers. */
  async function waitCounts(): Promise<Record<'backoff' | 'concurrency' | 'rate', number>> {
    const pages = await Promise.all(
      WORKERS.map((worker) => scrapeLabelled(platform.metricsUrl(worker), ['trawl_host_wait_seconds_count'])),
    );
    const sum = (reason: string) =>
      pages.reduce((total, series) => total + (series[`trawl_host_wait_seconds_count{reason="${reason}"}`] ?? 0), 0);
    return { backoff: sum('backoff'), concurrency: sum('concurrency'), rate: sum('rate') };
  }

  const perWorker = (name: string) =>
    Promise.all(WORKERS.map(async (worker) => (await scrapeTotals(platform.metricsUrl(worker)))[name] ?? 0));

  it('never has more loads in flight on one host than the limit, though the crawl and both workers could run more', async () => {
    const pagesBefore = await perWorker('trawl_worker_pages_total');
    await crawl(web.url('throttle.test', '/?ms=400'));
    expect(web.hits('throttle.test')).toBe(THROTTLE_PAGE_COUNT + 1);
    expect(web.mostInFlight('throttle.test')).toBe(HOST_CONCURRENCY);
    // Both replicas loaded pages of the host: the limit held across them, not within one.
    const pagesAfter = await perWorker('trawl_worker_pages_total');
    expect(pagesAfter.map((after, i) => after - pagesBefore[i]).every((pages) => pages > 0)).toBe(true);
    expect((await waitCounts()).concurrency).toBeGreaterThan(0);
  }, 60_000);

  it('spaces the starts on one host by the rate limit, across both workers', async () => {
    await crawl(web.url('throttle.test', '/'));
    const arrivals = web.arrivals('throttle.test');
    expect(arrivals).toHaveLength(THROTTLE_PAGE_COUNT + 1);
    const interval = 1000 / HOST_RATE;
    // Starts are reserved exactly `interval` apart; one that leaves a few ms late brings the next closer.
    const gaps = arrivals.slice(1).map((at, i) => at - arrivals[i]);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(interval / 2);
    // Over any five starts in a row, the rate holds: four intervals, less what a late first one took.
    const spans = arrivals.slice(4).map((at, i) => at - arrivals[i]);
    expect(Math.min(...spans)).toBeGreaterThanOrEqual(4 * interval - 50);
  }, 60_000);

  it('pauses a host that answers 429 for every worker, for its Retry-After, and retries the load once after it', async () => {
    const waitsBefore = await waitCounts();
    const limited = callFetchApi(platform, apiKey, { url: web.url('busy.test', '/limited'), original_status: 'true' });
    // The pause is recorded once a worker has counted the 429.
    await waitFor(async () => (await perWorker('trawl_host_backoffs_total')).reduce((a, b) => a + b, 0) > 0 || undefined, {
      timeoutMs: 20_000,
      intervalMs: 20,
    });
    const answeredAt = web.arrivals('busy.test')[0];
    // Loads of the same host through both workers, each its own request: all wait out the pause.
    const others = await Promise.all(
      Array.from({ length: 6 }, (_, i) => callFetchApi(platform, apiKey, { url: web.url('busy.test', `/ok?i=${i}`) })),
    );
    expect(others.map((answer) => answer.status)).toEqual(Array(6).fill(200));
    const answer = await limited;
    expect(answer.status).toBe(429);
    expect(web.hits('busy.test', '/limited')).toBe(2);
    const later = web.arrivals('busy.test').slice(1);
    expect(later).toHaveLength(7);
    for (const at of later) expect(at - answeredAt).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 - 50);
    // Each of those seven loads waited, and the workers said why: the pause, then the limits behind it.
    const waitsAfter = await waitCounts();
    const waited = (reason: keyof typeof waitsAfter) => waitsAfter[reason] - waitsBefore[reason];
    expect(waited('backoff')).toBeGreaterThan(0);
    expect(waited('backoff') + waited('concurrency') + waited('rate')).toBeGreaterThanOrEqual(7);
  }, 60_000);
});
