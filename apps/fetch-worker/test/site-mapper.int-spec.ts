import { Registry } from 'prom-client';
import type { MapRequestV1 } from '@trawl/contracts';
import type { MapResultResource } from '@trawl/contracts/http';
import { createEgressAgent, EgressPolicy, parseHostMap } from '@trawl/egress';
import { waitFor } from '@trawl/testing';
import { BIG_MAP_URLS, expected, fixtureHostMap, FixtureWeb, startFixtureWeb } from '../../../test/fixtures/web';
import { testIdentities } from '../src/identity/identity.test-support';
import { HttpEngine } from '../src/page-fetch/http-engine';
import { MapMetrics } from '../src/site-map/map.metrics';
import { RobotsCache } from '../src/site-map/robots-cache';
import { MapOutcome, SiteMapper } from '../src/site-map/site-mapper';

describe(SiteMapper.name, () => {
  let web: FixtureWeb;
  let http: HttpEngine;
  let mapper: SiteMapper;
  let registry: Registry;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    const policy = new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) });
    http = new HttpEngine({ policy, agent: createEgressAgent(policy) });
    registry = new Registry();
    const robots = new RobotsCache({ http, identities: testIdentities });
    mapper = new SiteMapper({
      http,
      identities: testIdentities,
      robots,
      maxPageBytes: 10 * 1024 * 1024,
      metrics: new MapMetrics(registry),
    });
  });

  afterAll(async () => {
    await http?.close();
    await web?.close();
  });

  beforeEach(() => web.resetHits());

  const request = (url: string, options: Partial<MapRequestV1> = {}): MapRequestV1 => ({
    v: 1,
    request_id: 'req-1',
    tenant_id: 'tenant-1',
    url,
    limit: 5_000,
    include_subdomains: false,
    sitemap: 'include',
    timeout_ms: 20_000,
    ...options,
  });
  const mapOf = async (url: string, options: Partial<MapRequestV1> = {}): Promise<MapResultResource> => {
    const outcome: MapOutcome = await mapper.map(request(url, options), new AbortController().signal);
    if (!outcome.ok) throw new Error(`map failed: ${outcome.code} ${outcome.detail}`);
    return outcome.result;
  };

  describe('map', () => {
    it("reads robots.txt's sitemaps, indexes, gzip files and text sitemaps, and the page, deduplicated by the crawl's rules", async () => {
      const result = await mapOf(web.url('maps.test'));
      expect(result.links.map((link) => link.url)).toEqual(expected.maps.hostLinks(web.port));
      expect(result.found).toBe(expected.maps.hostLinks(web.port).length);
      expect(result.complete).toBe(true);
      const site = web.url('maps.test', '');
      expect(result.sources).toEqual({
        robots_txt: 'read',
        sitemaps_read: [
          `${site}/sitemap-index.xml`,
          `${site}/extra.txt`,
          `${site}/sitemaps/products.xml.gz`,
          `${site}/sitemaps/pages.xml`,
          `${site}/sitemaps/nested.xml`,
          `${site}/sitemaps/deep.xml`,
        ],
        sitemaps_failed: [{ url: `${site}/sitemaps/missing.xml`, reason: 'HTTP 404' }],
        page_links: 6 - 2,
      });
    });

    it('gives sitemap links their lastmod and page links their text, the page lending its text to a sitemap link', async () => {
      const links = (await mapOf(web.url('maps.test'))).links;
      const byPath = (path: string) => links.find((link) => link.url === web.url('maps.test', path));
      expect(byPath('/products/3')).toEqual({ url: web.url('maps.test', '/products/3'), source: 'sitemap', lastmod: '2026-11-03' });
      expect(byPath('/shoes')).toEqual({ url: web.url('maps.test', '/shoes'), source: 'page', title: 'Red shoes' });
      expect(byPath('/about')).toEqual({ url: web.url('maps.test', '/about'), source: 'page', title: 'About us' });
    });

    it('takes in the subdomains when asked, never another site', async () => {
      const urls = (await mapOf(web.url('maps.test'), { include_subdomains: true })).links.map((link) => link.url);
      expect(urls).toEqual(expect.arrayContaining([web.url('shop.maps.test', '/sale'), web.url('shop.maps.test', '/deals')]));
      expect(urls.filter((url) => url.includes('other.test'))).toEqual([]);
      expect(web.hits('other.test')).toBe(0);
    });

    it('reads only the sitemaps, or only the page, as asked', async () => {
      const only = await mapOf(web.url('maps.test'), { sitemap: 'only' });
      expect(only.links.every((link) => link.source === 'sitemap')).toBe(true);
      expect(only.sources.page_links).toBe(0);
      expect(web.hits('maps.test', '/')).toBe(0);

      web.resetHits();
      const skip = await mapOf(web.url('maps.test'), { sitemap: 'skip' });
      expect(skip.links.map((link) => link.url)).toEqual(expected.maps.hostLinks(web.port).slice(0, 5));
      expect(skip.sources.robots_txt).toBe('skipped');
      expect(web.hits('maps.test', '/robots.txt')).toBe(0);
    });

    it('ranks by relevance with a search and keeps only what matches', async () => {
      const result = await mapOf(web.url('maps.test'), { search: 'red shoes' });
      expect(result.links.map((link) => link.url)).toEqual([web.url('maps.test', '/shoes'), web.url('maps.test', '/blog/red-shoes-guide')]);
      expect(result.found).toBe(2);
    });

    it('answers at most limit links and says how many it found', async () => {
      const result = await mapOf(web.url('maps.test'), { limit: 3 });
      expect(result.links).toHaveLength(3);
      expect(result.found).toBe(expected.maps.hostLinks(web.port).length);
    });

    it('looks for /sitemap.xml when robots.txt is missing', async () => {
      const result = await mapOf(web.url('bare.test'));
      expect(result.links.map((link) => link.url)).toEqual(['/', '/three', '/one', '/two'].map((path) => web.url('bare.test', path)));
      expect(result.sources.robots_txt).toBe('missing');
      expect(result.sources.sitemaps_read).toEqual([web.url('bare.test', '/sitemap.xml')]);
    });

    it('fails site_unreachable when nothing could be read, and counts what it read', async () => {
      const outcome = await mapper.map(request(web.url('gone.test')), new AbortController().signal);
      expect(outcome).toEqual({ ok: false, code: 'site_unreachable', detail: 'The page could not be read: HTTP 404.' });
      const metrics = await registry.getSingleMetricAsString('trawl_worker_map_documents_total');
      expect(metrics).toMatch(/kind="robots",outcome="missing"} [1-9]/);
    });

    it(`maps a ${BIG_MAP_URLS.toLocaleString('en')}-URL gzipped sitemap`, async () => {
      const result = await mapOf(web.url('big-map.test'), { limit: 100_000 });
      expect(result.links).toHaveLength(BIG_MAP_URLS + 1);
      expect(new Set(result.links.map((link) => link.url)).size).toBe(BIG_MAP_URLS + 1);
      expect(result.complete).toBe(true);
    });

    it('answers what it found by its deadline, marked incomplete', async () => {
      const result = await mapOf(web.url('hang-map.test'), { timeout_ms: 1_500 });
      expect(result.links.map((link) => link.url)).toEqual(['/', '/page/1', '/fast/1'].map((path) => web.url('hang-map.test', path)));
      expect(result.complete).toBe(false);
      expect(result.sources.sitemaps_read).toEqual([web.url('hang-map.test', '/fast.xml')]);
    });

    it('stops and throws the reason when the caller gives up', async () => {
      const caller = new AbortController();
      const mapping = mapper.map(request(web.url('hang-map.test')), caller.signal);
      await waitFor(() => web.hits('hang-map.test', '/hang.xml') === 1);
      caller.abort(new Error('client gone'));
      await expect(mapping).rejects.toThrow('client gone');
    });
  });
});
