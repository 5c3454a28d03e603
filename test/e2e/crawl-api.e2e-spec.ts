import { Client } from 'pg';
import { expected, FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { ApiClient, Platform } from '../support/platform';
import { waitFor } from '@trawl/testing';

/**
 * The Crawl API end to end: all five services as processes, the fixture web on loopback, and only
 * the public API (plus one look at the credit ledger, which has no endpoint yet).
 */
describe('Crawl API (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 500 });
    platform = new Platform('crawl-api', {
      hostMap: fixtureHostMap(),
      // 50 pages at a time per worker: the stop test stops while every slot holds a slow page.
      env: {
        // Pages time out after 6 s: the stop test's pages take 4 s, fail.test's /hang must time out.
        'fetch-worker': { PAGE_TIMEOUT_MS: '6000', WORKER_CONCURRENCY: '50' },
        'crawl-coordinator': { RECONCILE_INTERVAL_MS: '500' },
      },
    });
    await platform.start();
    const tenant = await platform.createTenant({ max_active_jobs: 20 });
    api = platform.client(tenant.api_key);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  const sorted = (urls: string[]) => [...urls].sort();

  async function crawl(body: Record<string, unknown>) {
    const started = await api.startCrawl(body);
    expect(started.status).toBe(202);
    const ended = await api.waitUntilEnded(started.body.crawl_id);
    const results = await api.readAllResults(started.body.crawl_id);
    return { started, ended, results, id: started.body.crawl_id as string };
  }

  describe('POST /v1/crawls', () => {
    it('answers 202 with a running crawl, zeroed coverage and a Location header', async () => {
      const res = await api.startCrawl({ url: web.url('empty.test', '/') });
      expect(res.status).toBe(202);
      expect(res.headers.get('location')).toBe(`/v1/crawls/${res.body.crawl_id}`);
      expect(res.body).toMatchObject({
        status: 'running',
        url: web.url('empty.test', '/'),
        max_items: 100,
        max_pages: 100,
        include_patterns: [],
        exclude_patterns: [],
        discovery: ['links'],
        coverage: { pages_fetched: 0, pages_failed: 0, items_found: 0 },
        duplicates_removed: 0,
      });
      expect(res.body.results).toBeUndefined();
      await api.waitUntilEnded(res.body.crawl_id);
    });
  });

  describe('a whole-site crawl', () => {
    it('returns every URL of the site once, normalised, in scope, never the start URL', async () => {
      web.resetHits();
      const { ended, results } = await crawl({ url: web.url('rules.test', '/'), max_items: 1000, max_pages: 1000 });
      const urls = results.map((r) => r.url);
      expect(sorted(urls)).toEqual(sorted(expected.rules.allItems(web.port)));
      expect(ended.status).toBe('completed');
      expect(ended.stop_reason).toBeUndefined();
      expect(ended.coverage.items_found).toBe(urls.length);
      expect(ended.duplicates_removed).toBeGreaterThan(0);
      expect(ended.finished_at).toEqual(expect.any(String));
      for (const forbidden of expected.rules.neverRequested()) {
        expect({ ...forbidden, hits: web.hits(forbidden.host, forbidden.path) }).toMatchObject({ hits: 0 });
      }
    });

    it("stays on one customer's site under a shared-hosting suffix (alice.github.io, not bob.github.io)", async () => {
      web.resetHits();
      const { ended, results } = await crawl({ url: web.url('alice.github.io', '/') });
      expect(sorted(results.map((r) => r.url))).toEqual(sorted(expected.sharedHosting.aliceItems(web.port)));
      expect(ended.status).toBe('completed');
      expect(web.hits(expected.sharedHosting.otherCustomerHost)).toBe(0);
    });

    it('follows links only as deep as `depth` link hops', async () => {
      for (const depth of [1, 2]) {
        const { results, ended } = await crawl({ url: web.url('rules.test', '/'), depth });
        expect(sorted(results.map((r) => r.url))).toEqual(sorted(expected.rules.itemsUpToDepth(web.port, depth)));
        expect(ended.depth).toBe(depth);
      }
    });

    it('keeps and opens only URLs that pass include and exclude patterns', async () => {
      const { results, ended } = await crawl({
        url: web.url('rules.test', '/'),
        include_patterns: ['/products/'],
        exclude_patterns: ['/reviews'],
      });
      expect(sorted(results.map((r) => r.url))).toEqual(
        sorted(expected.rules.allItems(web.port).filter((u) => u.includes('/products/') && !u.includes('/reviews'))),
      );
      expect(ended.include_patterns).toEqual(['/products/']);
      expect(ended.exclude_patterns).toEqual(['/reviews']);
    });
  });

  describe('limits', () => {
    it('stops at exactly max_items with stop_reason max_items', async () => {
      const { results, ended } = await crawl({ url: web.url('big.test', '/'), max_items: 37, max_pages: 1000 });
      expect(results).toHaveLength(37);
      expect(ended).toMatchObject({ status: 'completed', stop_reason: 'max_items', coverage: { items_found: 37 } });
    });

    it('fetches exactly max_pages pages with stop_reason max_pages', async () => {
      const { ended } = await crawl({ url: web.url('big.test', '/'), max_items: 10_000, max_pages: 12 });
      expect(ended).toMatchObject({ status: 'completed', stop_reason: 'max_pages', coverage: { pages_fetched: 12 } });
    });

    it('escapes crawler traps through max_pages', async () => {
      const { ended } = await crawl({ url: web.url('trap.test', '/'), max_pages: 25, max_items: 10_000 });
      expect(ended).toMatchObject({ status: 'completed', stop_reason: 'max_pages', coverage: { pages_fetched: 25 } });
    });
  });

  describe('output_format html', () => {
    it('keeps each page HTML behind content_url and counts its fetch in max_pages', async () => {
      const { results, ended, id } = await crawl({
        url: web.url('rules.test', '/'),
        depth: 1,
        output_format: 'html',
        max_pages: 1000,
      });
      expect(ended.output_format).toBe('html');
      expect(sorted(results.map((r) => r.url))).toEqual(sorted(expected.rules.itemsAtDepth1(web.port)));
      const fetched = results.filter((r) => r.content_status === 'fetched');
      expect(fetched.length).toBeGreaterThan(5);
      // Depth 1: the start page is opened, every kept page is fetched once more for its HTML.
      expect(ended.coverage.pages_fetched).toBe(1 + results.length);
      const sample = fetched.find((r) => r.url.endsWith('/products/1'))!;
      expect(sample.content_url).toMatch(new RegExp(`^/v1/crawls/${id}/contents/\\d+$`));
      const page = await api.request('GET', sample.content_url!);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(page.text).toContain('/products/1/reviews');
      const saved = await api.request('GET', `${sample.content_url}?download=true`);
      expect(saved.headers.get('content-disposition')).toMatch(/attachment/);

      const download = await api.request('GET', `/v1/crawls/${id}/download`);
      const lines = download.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.find((l) => l.url === sample.url)).toMatchObject({ content_status: 'fetched', content: page.text });
    });

    it('stops before max_items when content fetches use up max_pages', async () => {
      const { ended, results, id } = await crawl({ url: web.url('big.test', '/'), output_format: 'html', max_pages: 6, max_items: 50 });
      expect(ended).toMatchObject({ status: 'completed', stop_reason: 'max_pages', coverage: { pages_fetched: 6 } });
      expect(results.filter((r) => r.content_status === 'fetched').length).toBeLessThanOrEqual(5);
      // Kept pages max_pages left unfetched are final: `failed`, never `pending`, and have no content.
      expect(results.length).toBeGreaterThan(5);
      expect(results.filter((r) => r.content_status !== 'fetched' && r.content_status !== 'failed')).toEqual([]);
      const unfetched = results.find((r) => r.content_status === 'failed')!;
      expect(unfetched.content_url).toBeUndefined();
      const download = await api.request('GET', `/v1/crawls/${id}/download`);
      const lines = download.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.find((l) => l.url === unfetched.url)).toEqual({ url: unfetched.url, content_status: 'failed' });
    });
  });

  describe('download', () => {
    it('serves every result as {crawl_id}.jsonl with X-Crawl-Status', async () => {
      const { results, id } = await crawl({ url: web.url('rules.test', '/'), depth: 1 });
      const res = await api.request('GET', `/v1/crawls/${id}/download`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-crawl-status')).toBe('completed');
      expect(res.headers.get('content-disposition')).toContain(`${id}.jsonl`);
      const lines = res.text
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).url);
      expect(sorted(lines)).toEqual(sorted(results.map((r) => r.url)));
    });
  });

  describe('failures', () => {
    it('fails with seed_unreachable when the start URL cannot be fetched', async () => {
      const { ended } = await crawl({ url: web.url('fail.test', expected.fail.downPath) });
      expect(ended).toMatchObject({ status: 'failed', error: { code: 'seed_unreachable' } });
      expect(ended.stop_reason).toBeUndefined();
    });

    it('fails with no_items_found when the site links nowhere', async () => {
      const { ended } = await crawl({ url: web.url('empty.test', '/') });
      expect(ended).toMatchObject({ status: 'failed', error: { code: 'no_items_found' } });
    });

    it('counts failed pages and bills only fetched pages and 404/410', async () => {
      const { ended, results, id } = await crawl({ url: web.url('fail.test', '/') });
      expect(sorted(results.map((r) => r.url))).toEqual(sorted(expected.fail.allItems(web.port)));
      expect(ended.coverage.pages_failed).toBe(expected.fail.failedPaths.length);
      const db = new Client({ connectionString: platform.databaseUrl });
      await db.connect();
      try {
        const ledger = await db.query(`SELECT count(*)::int AS n, sum(credits)::int AS credits FROM credit_ledger WHERE ref LIKE $1`, [
          `crawl:${id}:%`,
        ]);
        const fetchedOk = ended.coverage.pages_fetched - ended.coverage.pages_failed;
        const billable = fetchedOk + expected.fail.billedFailedPaths.length;
        expect(ledger.rows[0]).toEqual({ n: billable, credits: billable });
      } finally {
        await db.end();
      }
    }, 30_000);

    it('follows redirects between allowed hosts and refuses one into loopback', async () => {
      const { results } = await crawl({ url: web.url('redirect.test', '/all') });
      const urls = results.map((r) => r.url);
      for (const url of expected.redirect.allItems(web.port)) expect(urls).toContain(url);
      expect(web.hits('127.0.0.1')).toBe(0);
    });
  });

  describe('POST /v1/crawls/{id}/stop', () => {
    it('fetches no new page after a stop and lets pages in flight add their links', async () => {
      const started = await api.startCrawl({ url: `${web.url('slow.test', '/')}?ms=4000`, max_items: 1000, max_pages: 1000 });
      const id = started.body.crawl_id;
      // The start page and its 40 slow links are done, and all 50 slots of the worker hold a slow
      // second-level page (4 s each) while 70 more wait in the queue: nothing starts until the
      // stop, so "no new page after the stop" is exact. The pages are slow enough that none of
      // them ends, and frees a slot for a queued task, before the stop notice reaches the worker
      // on a loaded machine (at 1.5 s, three did in one CI run).
      await waitFor(() => web.hits('slow.test') >= 1 + 40 + 50, { timeoutMs: 20_000, what: 'all worker slots busy' });
      const stop = await api.request('POST', `/v1/crawls/${id}/stop`);
      expect(stop.status).toBe(200);
      expect(stop.body).toMatchObject({ crawl_id: id, status: 'stopped', stop_reason: 'user', finished_at: expect.any(String) });
      const hitsAtStop = web.hits('slow.test');
      const results = await api.readAllResults(id);
      const final = await api.getCrawl(id);
      expect(final.body).toMatchObject({ status: 'stopped', stop_reason: 'user', finished_at: stop.body.finished_at });
      expect(final.body.coverage.items_found).toBe(results.length);
      // Pages in flight finished and added their links, but no page was requested after the stop:
      // tasks already queued for workers were skipped, not fetched.
      expect(web.hits('slow.test')).toBe(hitsAtStop);
      expect(final.body.coverage.pages_fetched).toBeLessThanOrEqual(hitsAtStop);
      expect(results.length).toBeGreaterThanOrEqual(40);
      const again = await api.request('POST', `/v1/crawls/${id}/stop`);
      expect(again.body).toEqual(stop.body);
    }, 60_000);
  });

  describe('GET /v1/crawls', () => {
    it('lists the tenant crawls newest first and hides other tenants', async () => {
      const other = platform.client((await platform.createTenant()).api_key);
      const mine = await api.request('GET', '/v1/crawls?limit=2');
      expect(mine.status).toBe(200);
      expect(mine.body.crawls).toHaveLength(2);
      expect(mine.body.next_cursor).toEqual(expect.any(String));
      const theirs = await other.request('GET', '/v1/crawls');
      expect(theirs.body.crawls).toEqual([]);
      const peek = await other.getCrawl(mine.body.crawls[0].crawl_id);
      expect(peek.status).toBe(404);
      expect(peek.headers.get('content-type')).toContain('application/problem+json');
      expect(peek.body.code).toBe('crawl_not_found');
    });
  });
});
