import { FixtureWeb, fixtureHostMap, MAPS_PRODUCTS, startFixtureWeb } from '../fixtures/web';
import { ApiClient, Platform } from '../support/platform';

/**
 * Crawls seeded from sitemaps and polite to robots.txt, end to end: the gateway, a coordinator and a
 * worker as processes, the fixture web's sitemap sites on loopback, only the public API.
 */
describe('Crawl discovery: sitemaps and robots.txt (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    platform = new Platform('crawl-discovery', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'crawl-coordinator', 'fetch-worker'],
      env: { 'crawl-coordinator': { SITEMAP_POLL_MS: '200' } },
    });
    await platform.start();
    const tenant = await platform.createTenant({ max_active_jobs: 10, credits: 100_000 });
    api = platform.client(tenant.api_key);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  beforeEach(() => web.resetHits());

  async function crawl(body: Record<string, unknown>) {
    const started = await api.startCrawl({ max_items: 1_000, max_pages: 1_000, ...body });
    expect(started.status).toBe(202);
    const ended = await api.waitUntilEnded(started.body.crawl_id, 90_000);
    const results = await api.readAllResults(started.body.crawl_id);
    return { started: started.body, ended, urls: results.map((r) => r.url as string).sort() };
  }

  const site = (path: string) => web.url('maps.test', path);
  /** Every URL maps.test's sitemaps name in the crawl's scope (its site, subdomains included). */
  const sitemapUrls = () =>
    [
      ...Array.from({ length: MAPS_PRODUCTS }, (_, i) => site(`/products/${i + 1}`)),
      site('/about'),
      site('/contact'),
      site('/blog/red-shoes-guide'),
      site('/deep/1'),
      site('/text/1'),
      site('/text/2'),
      web.url('shop.maps.test', '/deals'),
    ].sort();

  it("crawls the sitemaps' URLs alone with sitemap: only, following no link", async () => {
    const { started, ended, urls } = await crawl({ url: site('/'), sitemap: 'only' });
    expect(started).toMatchObject({ sitemap: 'only', respect_robots: false, discovery: ['sitemap'], sitemap_status: 'pending' });
    expect(ended).toMatchObject({ status: 'completed', sitemap_status: 'read', sitemap_urls: sitemapUrls().length });
    expect(urls).toEqual(sitemapUrls());
    // The start page was fetched (it is the seed), its links were not.
    expect(web.hits('maps.test', '/shoes')).toBe(0);
    expect(web.hits('other.test')).toBe(0);
  });

  it('adds the sitemaps to the links with sitemap: include, each URL once', async () => {
    const { ended, urls } = await crawl({ url: site('/'), sitemap: 'include' });
    expect(ended).toMatchObject({ status: 'completed', discovery: ['links', 'sitemap'], sitemap_status: 'read' });
    const pageLinks = [site('/shoes'), site('/hats'), site('/private/area'), web.url('shop.maps.test', '/sale')];
    expect(urls).toEqual([...sitemapUrls(), ...pageLinks].sort());
    expect(ended.coverage.items_found).toBe(urls.length);
  });

  it('keeps to links alone by default, as the spec crawl does', async () => {
    const { started, urls } = await crawl({ url: site('/') });
    expect(started).toMatchObject({ sitemap: 'skip', discovery: ['links'], sitemap_urls: 0, robots_disallowed: 0 });
    expect(started.sitemap_status).toBeUndefined();
    expect(urls).toEqual([site('/about'), site('/shoes'), site('/hats'), site('/private/area'), web.url('shop.maps.test', '/sale')].sort());
    expect(web.hits('maps.test', '/robots.txt')).toBe(0);
  });

  it('skips what robots.txt disallows with respect_robots, counts it, and never requests it', async () => {
    const { ended, urls } = await crawl({ url: site('/'), sitemap: 'include', respect_robots: true });
    expect(urls).not.toContain(site('/private/area'));
    expect(urls).toContain(site('/shoes'));
    expect(ended).toMatchObject({ status: 'completed', respect_robots: true });
    expect(ended.robots_disallowed).toBeGreaterThanOrEqual(1);
    expect(web.hits('maps.test', '/private/area')).toBe(0);
  });

  it("keeps robots.txt's Crawl-delay between pages", async () => {
    const { ended, urls } = await crawl({ url: web.url('polite.test', '/'), respect_robots: true });
    expect(ended.status).toBe('completed');
    expect(urls).toEqual(['/a', '/b', '/c'].map((path) => web.url('polite.test', path)));
    const arrivals = ['/a', '/b', '/c'].map((path) => web.firstArrival('polite.test', path)!).sort((a, b) => a - b);
    // One second apart, less the timer granularity of the dispatch poll.
    expect(arrivals[1] - arrivals[0]).toBeGreaterThanOrEqual(900);
    expect(arrivals[2] - arrivals[1]).toBeGreaterThanOrEqual(900);
    expect(web.hits('polite.test', '/secret/x')).toBe(0);
  }, 60_000);

  it('fails seed_unreachable when robots.txt disallows the start URL', async () => {
    const { ended, urls } = await crawl({ url: web.url('polite.test', '/secret/x'), respect_robots: true });
    expect(ended).toMatchObject({
      status: 'failed',
      error: { code: 'seed_unreachable', detail: "The site's robots.txt disallows the start URL." },
    });
    expect(urls).toEqual([]);
    expect(web.hits('polite.test', '/secret/x')).toBe(0);
  });

  it('refuses a sitemap mode it does not know, naming the field', async () => {
    const res = await api.startCrawl({ url: site('/'), sitemap: 'always' });
    expect({ status: res.status, code: res.body.code, parameter: res.body.parameter }).toEqual({
      status: 422,
      code: 'invalid_parameter',
      parameter: 'sitemap',
    });
    const robots = await api.startCrawl({ url: site('/'), respect_robots: 'yes' });
    expect({ status: robots.status, parameter: robots.body.parameter }).toEqual({ status: 400, parameter: 'respect_robots' });
  });

  it('ends a crawl of sitemaps alone on a site without any, with no_items_found', async () => {
    const { ended } = await crawl({ url: web.url('gone.test', '/'), sitemap: 'only' });
    expect(ended).toMatchObject({ status: 'failed', sitemap_status: 'failed' });
    expect(['seed_unreachable', 'no_items_found']).toContain(ended.error.code);
  });

  describe('GET /v1/crawls/{id}/urls: where each URL went', () => {
    const fateOf = async (crawlId: string, url: string) => {
      const res = await api.request('GET', `/v1/crawls/${crawlId}/urls?url=${encodeURIComponent(url)}`);
      expect(res.status).toBe(200);
      return res.body;
    };

    it('tells kept, duplicate, start, out of scope, excluded, disallowed, over max_items and not seen apart', async () => {
      const { started } = await crawl({ url: site('/'), sitemap: 'include', respect_robots: true, exclude_patterns: ['/hats'] });
      const id = started.crawl_id as string;
      const results = (await api.readAllResults(id)).map((r) => r.url as string);
      const keptUrl = results[0]!;

      expect(await fateOf(id, keptUrl)).toMatchObject({ fate: 'kept', result_url: keptUrl, page: { state: expect.any(String) } });
      const other = keptUrl.replace('http://maps.test', 'http://www.maps.test') + '/';
      expect(await fateOf(id, other)).toMatchObject({ fate: 'duplicate', result_url: keptUrl });
      expect(await fateOf(id, site('/?utm_source=x'))).toMatchObject({ fate: 'start_url', page: { state: 'fetched' } });
      expect(await fateOf(id, web.url('other.test', '/x'))).toMatchObject({ fate: 'out_of_scope' });
      expect(await fateOf(id, site('/hats'))).toMatchObject({ fate: 'excluded', pattern: '/hats' });
      expect(await fateOf(id, site('/private/area'))).toMatchObject({ fate: 'robots_disallowed', found_on: site('/') });
      expect(await fateOf(id, site('/never/linked'))).toMatchObject({ fate: 'not_seen' });
    });

    it('tells the URLs met after max_items was reached, with where they were found', async () => {
      // The sitemaps alone: one intake of every URL, of which five are kept.
      const { started, ended } = await crawl({ url: site('/'), sitemap: 'only', max_items: 5 });
      expect(ended.coverage.items_found).toBe(5);
      const id = started.crawl_id as string;
      const results = (await api.readAllResults(id)).map((r) => r.url as string);
      const overLimit = sitemapUrls().filter((url) => !results.includes(url));
      expect(overLimit).toHaveLength(sitemapUrls().length - 5);
      for (const url of overLimit) expect(await fateOf(id, url)).toMatchObject({ fate: 'over_max_items', found_on: 'sitemap' });
      // The start page may still have been waiting when the crawl ended: it never will be fetched now.
      expect((await fateOf(id, site('/'))).page.state).toMatch(/^(fetched|not_fetched)$/);
    });

    it("tells a kept page's failure code", async () => {
      const { started } = await crawl({ url: web.url('fail.test', '/'), exclude_patterns: ['/hang', '/reset'], depth: 2 });
      const id = started.crawl_id as string;
      expect(await fateOf(id, web.url('fail.test', '/e404'))).toMatchObject({ fate: 'kept', page: { state: 'failed', error: 'http_404' } });
      expect(await fateOf(id, web.url('fail.test', '/ok/1'))).toMatchObject({ fate: 'kept', page: { state: 'fetched' } });
      expect(await fateOf(id, web.url('fail.test', '/hang'))).toMatchObject({ fate: 'excluded', pattern: '/hang' });
      // At the depth limit: kept, never fetched (no page of it is opened, no content asked).
      expect(await fateOf(id, web.url('fail.test', '/ok/1/child'))).toMatchObject({ fate: 'kept', page: { state: 'not_fetched' } });
    }, 60_000);

    it("answers 404 for another tenant's crawl and 400 naming url for a missing or bad one", async () => {
      const { started } = await crawl({ url: site('/'), max_items: 2 });
      const id = started.crawl_id as string;
      const stranger = platform.client((await platform.createTenant()).api_key);
      const foreign = await stranger.request('GET', `/v1/crawls/${id}/urls?url=${encodeURIComponent(site('/about'))}`);
      expect({ status: foreign.status, code: foreign.body.code }).toEqual({ status: 404, code: 'crawl_not_found' });
      const missing = await api.request('GET', `/v1/crawls/${id}/urls`);
      expect({ status: missing.status, parameter: missing.body.parameter }).toEqual({ status: 400, parameter: 'url' });
      const bad = await api.request('GET', `/v1/crawls/${id}/urls?url=ftp%3A%2F%2Fx`);
      expect({ status: bad.status, parameter: bad.body.parameter }).toEqual({ status: 400, parameter: 'url' });
    });
  });
});
