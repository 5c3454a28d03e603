import { randomBytes } from 'node:crypto';
import { waitFor } from '@trawl/testing';
import { FixtureWeb, fixtureHostMap, startFixtureWeb, THROTTLE_PAGE_COUNT } from '../fixtures/web';
import { callFetchApi, creditsOf } from '../support/fetch-api-call';
import { ApiClient, Platform } from '../support/platform';

/**
 * Kept copies (`max_age`), end to end: the Fetch API and batch tasks answer a fresh copy of the same
 * request of the same tenant from storage, marked and billed as documented, and fetch otherwise.
 * Only the public API; the fixture web counts what reached the target.
 */
describe('Kept page copies with max_age (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let keys: [string, string];
  let api: ApiClient;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    platform = new Platform('page-copies', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'fetch-worker', 'scheduler', 'crawl-coordinator'],
      env: { all: { SECRETS_KEY: randomBytes(32).toString('base64') } },
    });
    await platform.start();
    const [a, b] = await Promise.all([platform.createTenant({ max_active_jobs: 5 }), platform.createTenant()]);
    keys = [a.api_key, b.api_key];
    api = platform.client(a.api_key);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  beforeEach(() => web.resetHits());

  const page = (path: string) => web.url('echo.test', path);
  const fetchAs = (key: string, params: Record<string, string>) => callFetchApi(platform, key, params);

  it('answers the same request from its copy within max_age, marked with its age, at 1 credit, without asking the target', async () => {
    const url = page('/html?copy=1');
    const first = await fetchAs(keys[0], { url, max_age: '600', js_render: 'true' });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-trawl-cache')).toBe('miss');
    expect(first.headers.get('age')).toBeNull();
    expect(creditsOf(first)).toBe(5);
    expect(web.hits('echo.test', '/html?copy=1')).toBe(1);

    const second = await fetchAs(keys[0], { url, max_age: '600', js_render: 'true' });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-trawl-cache')).toBe('hit');
    expect(Number(second.headers.get('age'))).toBeGreaterThanOrEqual(0);
    expect(Number(second.headers.get('age'))).toBeLessThan(60);
    expect(creditsOf(second)).toBe(1);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('zr-final-url')).toBe(first.headers.get('zr-final-url'));
    expect(web.hits('echo.test', '/html?copy=1')).toBe(1);
  }, 60_000);

  it('never answers one tenant from another tenant’s copy, nor a request with other options, nor one without max_age', async () => {
    const url = page('/html?copy=2');
    await fetchAs(keys[0], { url, max_age: '600' });
    const otherTenant = await fetchAs(keys[1], { url, max_age: '600' });
    expect(otherTenant.headers.get('x-trawl-cache')).toBe('miss');
    const otherOptions = await fetchAs(keys[0], { url, max_age: '600', response_type: 'markdown' });
    expect(otherOptions.headers.get('x-trawl-cache')).toBe('miss');
    const withoutMaxAge = await fetchAs(keys[0], { url });
    expect(withoutMaxAge.headers.get('x-trawl-cache')).toBeNull();
    expect(web.hits('echo.test', '/html?copy=2')).toBe(4);
    // Each of those kept its own copy: asked again, all three are hits.
    for (const [key, extra] of [
      [keys[0], {}],
      [keys[1], {}],
      [keys[0], { response_type: 'markdown' }],
    ] as const) {
      expect((await fetchAs(key, { url, max_age: '600', ...extra })).headers.get('x-trawl-cache')).toBe('hit');
    }
    expect(web.hits('echo.test', '/html?copy=2')).toBe(4);
  }, 60_000);

  it('fetches again once the copy is older than max_age, and keeps the new one', async () => {
    const url = page('/html?copy=3');
    await fetchAs(keys[0], { url, max_age: '1' });
    // A copy is at least a second old only after a second.
    await waitFor(
      async () => ((await fetchAs(keys[0], { url, max_age: '1' })).headers.get('x-trawl-cache') === 'miss' ? true : undefined),
      {
        timeoutMs: 10_000,
        intervalMs: 400,
      },
    );
    expect(web.hits('echo.test', '/html?copy=3')).toBeGreaterThanOrEqual(2);
    expect((await fetchAs(keys[0], { url, max_age: '600' })).headers.get('x-trawl-cache')).toBe('hit');
  }, 60_000);

  it('keeps no copy of a page the target failed, and refuses a max_age out of bounds naming it', async () => {
    const missing = page('/nowhere?copy=4');
    expect((await fetchAs(keys[0], { url: missing, max_age: '600' })).status).toBe(404);
    expect((await fetchAs(keys[0], { url: missing, max_age: '600' })).status).toBe(404);
    expect(web.hits('echo.test', '/nowhere?copy=4')).toBe(2);
    const refused = await fetchAs(keys[0], { url: page('/html'), max_age: '-5' });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text)).toMatchObject({ code: 'REQS004' });
    expect(refused.text).toContain('max_age');
  }, 60_000);

  it('answers batch tasks with max_age from the copies the Fetch API kept, billed 1 credit each', async () => {
    const urls = [page('/html?copy=5a'), page('/html?copy=5b')];
    for (const url of urls) await fetchAs(keys[0], { url, max_age: '600' });
    const created = await api.request('POST', '/v1/jobs', {
      tasks: urls.map((url, i) => ({ url, external_id: `t${i}` })),
      service_params: { max_age: 600 },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;
    const ended = await api.waitUntilRunEnded(jobId, 30_000);
    expect(ended.latest_run).toMatchObject({ status: 'completed', stats: { successful: 2, spend: { credits: 2 } } });
    const results = await api.request('GET', `/v1/jobs/${jobId}/results`);
    expect(results.body.results.map((r: { cache?: string }) => r.cache)).toEqual(['hit', 'hit']);
    for (const url of urls) expect(web.hits('echo.test', new URL(url).pathname + new URL(url).search)).toBe(1);
  }, 60_000);

  it('takes a crawl’s pages from the copies an earlier crawl with max_age kept, and shows max_age on the crawl', async () => {
    const crawl = async (body: Record<string, unknown>) => {
      const started = await api.startCrawl({ url: web.url('throttle.test', '/'), max_items: 100, max_pages: 100, ...body });
      expect(started.status).toBe(202);
      const ended = await api.waitUntilEnded(started.body.crawl_id, 60_000);
      expect(ended).toMatchObject({ status: 'completed', coverage: { pages_fetched: THROTTLE_PAGE_COUNT + 1, pages_failed: 0 } });
      const results = await api.readAllResults(started.body.crawl_id);
      const urls = results.map((result) => result.url).sort();
      const cache = new Set(results.map((result) => (result as { cache?: string }).cache ?? 'none'));
      return { ended, urls, cache };
    };
    const first = await crawl({ max_age: 600 });
    expect(first.ended.max_age).toBe(600);
    expect(first.cache).toEqual(new Set(['miss']));
    expect(web.hits('throttle.test')).toBe(THROTTLE_PAGE_COUNT + 1);
    const second = await crawl({ max_age: 600 });
    expect(second.urls).toEqual(first.urls);
    expect(second.cache).toEqual(new Set(['hit']));
    expect(web.hits('throttle.test')).toBe(THROTTLE_PAGE_COUNT + 1);
    // Without max_age every page is fetched again, and the crawl says nothing of copies.
    const third = await crawl({});
    expect(third.ended.max_age).toBeUndefined();
    expect(third.cache).toEqual(new Set(['none']));
    expect(web.hits('throttle.test')).toBe(2 * (THROTTLE_PAGE_COUNT + 1));
  }, 120_000);
});
