import { TrawlApiError, TrawlClient } from '@trawl/sdk';
import { waitFor } from '@trawl/testing';
import { BIG_MAP_URLS, expected, FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { ApiClient, Platform } from '../support/platform';

/**
 * The Map API end to end: the gateway and a worker as processes, the fixture web's sitemap sites
 * on loopback, and only the public API (and the SDK, as a user calls it).
 */
describe('Map API (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;
  let apiKey: string;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    platform = new Platform('map-api', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'fetch-worker'],
      env: { gateway: { FETCH_FORBIDDEN_DOMAINS: 'forbidden.test' } },
    });
    await platform.start();
    ({ api_key: apiKey } = await platform.createTenant({ credits: 1_000 }));
    api = platform.client(apiKey);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  const creditsUsed = async (client: ApiClient = api): Promise<number> =>
    (await client.request('GET', '/v1/subscriptions/self/details')).body.credits_used as number;

  describe('POST /v1/map', () => {
    it("answers the site's URLs from robots.txt's sitemaps and the page, with the usage headers, billed one credit", async () => {
      const before = await creditsUsed();
      const res = await api.request('POST', '/v1/map', { url: web.url('maps.test', '/') });
      expect(res.status).toBe(200);
      expect(res.body.links.map((link: { url: string }) => link.url)).toEqual(expected.maps.hostLinks(web.port));
      expect(res.body).toMatchObject({ url: web.url('maps.test', '/'), complete: true, found: expected.maps.hostLinks(web.port).length });
      expect(res.body.sources).toMatchObject({ robots_txt: 'read', page_links: 4 });
      expect(res.headers.get('x-request-credits')).toBe('1');
      expect(res.headers.get('concurrency-limit')).toEqual(expect.any(String));
      expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
      await waitFor(async () => (await creditsUsed()) === before + 1, { what: 'the map billed' });
      // Each document once: robots.txt, the page, the two sitemaps robots.txt names, and the index's four (deep.xml through nested.xml).
      expect(web.hits('maps.test', '/robots.txt')).toBe(1);
      expect(web.hits('other.test')).toBe(0);
    });

    it('bills one credit per started 5,000 links answered', async () => {
      const before = await creditsUsed();
      const res = await api.request('POST', '/v1/map', { url: web.url('big-map.test', '/'), limit: 100_000 });
      expect(res.status).toBe(200);
      expect(res.body.links).toHaveLength(BIG_MAP_URLS + 1);
      const credits = Math.ceil((BIG_MAP_URLS + 1) / 5_000);
      expect(res.headers.get('x-request-credits')).toBe(String(credits));
      await waitFor(async () => (await creditsUsed()) === before + credits, { what: 'the map billed' });
    });

    it('ranks by a search, and serves the SDK', async () => {
      const trawl = new TrawlClient({ apiKey, baseUrl: platform.gatewayUrl });
      const result = await trawl.map(web.url('maps.test', '/'), { search: 'red shoes', include_subdomains: true });
      expect(result.links.map((link) => link.url)).toEqual([web.url('maps.test', '/shoes'), web.url('maps.test', '/blog/red-shoes-guide')]);
      const error = await trawl.map(web.url('gone.test', '/')).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TrawlApiError);
      expect(error).toMatchObject({ status: 422, code: 'site_unreachable' });
    });

    it('answers a site with nothing to read 422 site_unreachable, unbilled', async () => {
      const before = await creditsUsed();
      const res = await api.request('POST', '/v1/map', { url: web.url('gone.test', '/') });
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ code: 'site_unreachable', detail: 'The page could not be read: HTTP 404.' });
      expect(res.headers.get('x-request-credits')).toBe('0');
      expect(await creditsUsed()).toBe(before);
    });

    it.each([
      [{}, 400, 'invalid_parameter', 'url'],
      [{ url: 'https://maps.test/', limit: 0 }, 422, 'invalid_parameter', 'limit'],
      [{ url: 'https://maps.test/', limit: 100_001 }, 422, 'invalid_parameter', 'limit'],
      [{ url: 'https://maps.test/', sitemap: 'always' }, 422, 'invalid_parameter', 'sitemap'],
      [{ url: 'https://maps.test/', include_subdomains: 'yes' }, 400, 'invalid_parameter', 'include_subdomains'],
      [{ url: 'https://maps.test/', timeout_ms: 10 }, 422, 'invalid_parameter', 'timeout_ms'],
      [{ url: 'https://maps.test/', search: '' }, 422, 'invalid_parameter', 'search'],
      [{ url: 'https://maps.test/', depth: 2 }, 400, 'unknown_parameter', 'depth'],
    ])('refuses %j with %i %s naming the field', async (body, status, code, parameter) => {
      const res = await api.request('POST', '/v1/map', body);
      expect({ status: res.status, code: res.body.code, parameter: res.body.parameter }).toEqual({ status, code, parameter });
    });

    it.each([
      ['another scheme', 'ftp://maps.test/'],
      ['an IP address', 'http://127.0.0.1/'],
      ['credentials', 'http://user:pw@maps.test/'],
      ['a name of a private address', 'http://localhost/'],
    ])('refuses %s with 422 invalid_url', async (_what, url) => {
      const res = await api.request('POST', '/v1/map', { url });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 422, code: 'invalid_url' });
    });

    it("refuses a domain the operator forbids with 400 forbidden_domain, and another tenant's key never sees a map", async () => {
      const res = await api.request('POST', '/v1/map', { url: 'https://www.forbidden.test/' });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 'forbidden_domain' });
      const anonymous = await new ApiClient(platform.gatewayUrl, 'not-a-key').request('POST', '/v1/map', {
        url: web.url('maps.test', '/'),
      });
      expect(anonymous.status).toBe(401);
    });

    it('counts maps and their links in the metrics', async () => {
      await api.request('POST', '/v1/map', { url: web.url('bare.test', '/') });
      await api.request('POST', '/v1/map', { url: web.url('gone.test', '/') });
      // Every series also carries the service's own label.
      const sample = (name: string, labels = '') => new RegExp(`^${name}\\{[^}]*${labels}[^}]*\\} [1-9]`, 'm');
      const gateway = await (await fetch(platform.metricsUrl('gateway'))).text();
      expect(gateway).toMatch(sample('trawl_map_requests_total', 'code="OK"'));
      expect(gateway).toMatch(sample('trawl_map_requests_total', 'code="site_unreachable"'));
      expect(gateway).toMatch(sample('trawl_map_links_total'));
      expect(gateway).toMatch(sample('trawl_tenant_requests_total', 'product="map"'));
      const worker = await (await fetch(platform.metricsUrl('fetch-worker'))).text();
      expect(worker).toMatch(sample('trawl_worker_map_documents_total', 'kind="sitemap",outcome="read"'));
    });
  });
});
