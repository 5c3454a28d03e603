import type { Pool } from 'pg';
import { testPool, waitFor } from '@trawl/testing';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { extractExpected } from '../fixtures/web/sites/extract';
import { ApiClient, Platform } from '../support/platform';

const SITE = extractExpected.labelsShop;
const MAX_PAGES = 16;

/**
 * A preparation whose scheduler is killed (`kill -9`) midway finishes after a restart
 * (docs/decisions/extract.md, "Postgres is the record"): the domain ends `ready` and served, and no
 * page fetched before the crash is fetched again (the first example excepted: a new delivery asks
 * it twice to tell whether the site needs rendering), but the one whose fetch was under way when
 * the scheduler died: a page is stored after its answer, so that one may be asked again. What was
 * stored before the crash is read from the scheduler's own table once it is dead (a count would
 * not tell which pages: `pages_fetched` leaves out pages that failed). Short
 * leases and a fast sweep hand the lost preparation to the restarted scheduler quickly; a pause
 * between pages keeps it fetching long enough to be caught midway.
 */
describe('Extract preparation crash safety (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;
  let pool: Pool;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    platform = new Platform('extract-crash', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'scheduler', 'fetch-worker'],
      env: {
        scheduler: {
          PREPARE_MAX_PAGES: String(MAX_PAGES),
          PREPARE_FETCH_INTERVAL_MS: '250',
          PREPARE_LEASE_MS: '3000',
          PREPARE_SWEEP_INTERVAL_MS: '500',
        },
      },
    });
    await platform.start();
    pool = testPool(platform.databaseUrl, 1);
    const tenant = await platform.createTenant();
    api = platform.client(tenant.api_key);
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await platform?.stop();
    await web?.close();
  }, 60_000);

  it('finishes after kill -9 of the scheduler midway, fetching no page twice', async () => {
    const asked = await api.request('POST', '/v1/extract/prepared-domains', {
      domain: SITE.host,
      example_urls: SITE.examplePaths.map((path) => web.url(SITE.host, path)),
    });
    expect(asked.status).toBe(202);
    const path = `/v1/extract/prepared-domains/${SITE.host}`;
    await waitFor(async () => (await api.request('GET', path)).body.progress.pages_fetched >= 4, {
      timeoutMs: 60_000,
      intervalMs: 100,
      what: 'four pages of the preparation fetched',
    });
    await platform.kill('scheduler', 'SIGKILL');
    const storedBeforeCrash = await storedPaths(pool, SITE.host);
    const fetchedBeforeCrash = (await api.request('GET', path)).body.progress.pages_fetched as number;
    expect(fetchedBeforeCrash).toBeLessThan(MAX_PAGES);
    await platform.startService('scheduler');

    const ready = await waitFor(
      async () => {
        const record = (await api.request('GET', path)).body;
        return record.status === 'ready' || record.status === 'failed' ? record : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250, what: 'the preparation settled after the restart' },
    );
    expect(ready).toMatchObject({ status: 'ready', served: true, recipe_version: 1 });
    expect(ready.progress.pages_analysed).toBeGreaterThan(fetchedBeforeCrash);
    expect(ready.progress.pages_analysed).toBeLessThanOrEqual(MAX_PAGES);

    const firstExample = SITE.examplePaths[0];
    expect(web.requestedPaths(SITE.host).filter((target) => target in SITE.pages).length).toBeGreaterThan(fetchedBeforeCrash);
    const twice = web
      .requestedPaths(SITE.host)
      // Pages only: robots.txt, sitemaps and the stylesheet the browser loads are read by each delivery.
      .filter((target) => target !== firstExample && target in SITE.pages)
      .filter((target) => web.hits(SITE.host, target) > 1);
    // Pages are fetched one at a time and stored after their answer: a page stored before the crash
    // is never asked again, and at most one other (the one under way at the kill) may be.
    expect(storedBeforeCrash.size).toBeGreaterThanOrEqual(fetchedBeforeCrash);
    expect(twice.filter((target) => storedBeforeCrash.has(target))).toEqual([]);
    expect(twice.filter((target) => !storedBeforeCrash.has(target)).length).toBeLessThanOrEqual(1);

    const listed = await api.request('GET', '/v1/extract/domains');
    expect(listed.body.domains.map((d: { domain: string }) => d.domain)).toContain(SITE.host);
  }, 240_000);
});

/** Path and query of every page of `host` the schedulers stored for its preparations, fetched or failed. */
async function storedPaths(pool: Pool, host: string): Promise<Set<string>> {
  const { rows } = await pool.query<{ url: string }>('SELECT url FROM extract_preparation_pages WHERE domain = $1', [host]);
  return new Set(
    rows.map(({ url }) => {
      const parsed = new URL(url);
      return parsed.pathname + parsed.search;
    }),
  );
}
