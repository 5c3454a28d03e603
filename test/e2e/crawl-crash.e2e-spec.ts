import { expected, FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { ApiClient, Platform, ServiceName } from '../support/platform';
import { waitFor } from '@trawl/testing';

const PAGES = 3_000;

/**
 * Crash safety (docs/decisions/platform.md, "Work leases"): `kill -9` a service in the middle of a crawl of thousands of
 * pages; after a restart the crawl completes with exactly the site's URL set — none missing, none
 * twice — and exact coverage counts. Short leases make the reconciler hand out lost work quickly.
 */
describe('Crawl crash safety (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: PAGES });
    platform = new Platform('crawl-crash', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'crawl-coordinator', 'fetch-worker'],
      env: {
        'crawl-coordinator': { LEASE_MS: '8000', RECONCILE_INTERVAL_MS: '1000', DISPATCH_WINDOW: '256' },
        'fetch-worker': { WORKER_CONCURRENCY: '16' },
      },
    });
    await platform.start();
    const tenant = await platform.createTenant({ max_active_jobs: 10 });
    api = platform.client(tenant.api_key);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  async function crawlThroughCrash(victim: ServiceName) {
    const started = await api.startCrawl({ url: web.url('big.test', '/'), max_items: 100_000, max_pages: 100_000 });
    expect(started.status).toBe(202);
    const id = started.body.crawl_id as string;
    await waitFor(async () => (await api.getCrawl(id, '?limit=1')).body.coverage.pages_fetched >= PAGES / 3, {
      timeoutMs: 60_000,
      what: 'a third of the site fetched',
    });
    await platform.kill(victim, 'SIGKILL');
    await platform.startService(victim);
    const ended = await api.waitUntilEnded(id, 180_000);
    const results = await api.readAllResults(id);
    return { ended, urls: results.map((r) => r.url) };
  }

  for (const victim of ['fetch-worker', 'crawl-coordinator'] as const) {
    it(`completes with the exact URL set after kill -9 of the ${victim}`, async () => {
      const { ended, urls } = await crawlThroughCrash(victim);
      const truth = expected.big.allItems(web.port, PAGES);
      expect(urls.length).toBe(truth.length);
      expect(new Set(urls)).toEqual(new Set(truth));
      expect(ended).toMatchObject({
        status: 'completed',
        coverage: { items_found: truth.length, pages_fetched: PAGES, pages_failed: 0 },
      });
      expect(ended.stop_reason).toBeUndefined();
    }, 300_000);
  }
});
