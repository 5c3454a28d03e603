import { testIdentities } from '../src/identity/identity.test-support';
import { RobotsCache } from '../src/site-map/robots-cache';
import pino from 'pino';
import { Registry } from 'prom-client';
import type { CrawlPageTaskV1 } from '@trawl/contracts';
import type { FixtureWeb } from '../../../test/fixtures/web';
import { STEALTH_GUARDED_PATH, STEALTH_TEXTS } from '../../../test/fixtures/web/sites/stealth';
import { CrawlPageFetcher } from '../src/crawl-pages/crawl-page-fetcher';
import { CrawlPageService } from '../src/crawl-pages/crawl-page.service';
import { WorkerMetrics } from '../src/worker.metrics';
import { httpTierStack } from './support/http-tier-stack';

const TENANT_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';
const CRAWL_ID = '5d0c2c8e-2b1f-4c55-8a0e-6f7d1b2c3d4e';
const EVERY_HTTP_TIER = ['basic', 'premium'] as const;

/**
 * Crawl pages as Fetch requests in adaptive stealth mode (Crawl spec §1 and its cost rules), on the
 * HTTP engine against real things (see httpTierStack), the fixture web's stealth sites among them.
 * (Rendering tiers: crawl-tiers.e2e-spec.)
 */
describe('Crawl pages through adaptive stealth', () => {
  const stack = httpTierStack(
    'crawltiers',
    ['standard', 'premium-a'],
    (proxies) => `standard=${proxies.standard!.url};premium=${proxies['premium-a']!.url}`,
  );
  let web: FixtureWeb;
  let crawlPages: CrawlPageService;
  let frontierId = 1;
  const registry = new Registry();
  /** Pages timed in `trawl_worker_fetch_seconds` with these labels. */
  const timed = async (labels: string) => {
    const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`trawl_worker_fetch_seconds_count{${labels}}`));
    return Number(line?.split(' ').at(-1) ?? 0);
  };

  beforeAll(() => {
    web = stack.web;
    const metrics = new WorkerMetrics(registry);
    const fetcher = new CrawlPageFetcher({ target: stack.target, pageTimeoutMs: 20_000, maxBodyBytes: 1024 * 1024, metrics });
    crawlPages = new CrawlPageService(
      fetcher,
      new RobotsCache({ http: stack.http, identities: testIdentities }),
      {},
      pino({ level: 'silent' }),
    );
  });

  const task = (host: string, path: string, overrides: Partial<CrawlPageTaskV1> = {}): CrawlPageTaskV1 => ({
    v: 1,
    crawl_id: CRAWL_ID,
    tenant_id: TENANT_ID,
    frontier_id: frontierId++,
    attempt: 1,
    url: web.url(host, path),
    depth: 0,
    wants_links: true,
    wants_content: true,
    scope_domain: host,
    auto_tiers: [...EVERY_HTTP_TIER],
    ...overrides,
  });

  it('bills an open page at basic, and escalates a guarded one to premium, billed 10 with its content', async () => {
    const landing = (await crawlPages.fetchPage(task('needs-premium.test', '/'))).result;
    expect(landing).toMatchObject({ outcome: 'fetched', tier: 'basic', credits: 1, opened: true });
    expect(landing.links).toEqual([web.url('needs-premium.test', STEALTH_GUARDED_PATH)]);

    const guarded = (await crawlPages.fetchPage(task('needs-premium.test', STEALTH_GUARDED_PATH))).result;
    expect(guarded).toMatchObject({ outcome: 'fetched', status_code: 200, tier: 'premium', credits: 10 });
    expect(guarded.content).toContain(STEALTH_TEXTS.needsPremium);
    // Remembered for the domain, shared by every worker: the next page starts at premium.
    expect(await stack.memory.recall('needs-premium.test')).toBe('premium');
    const again = (await crawlPages.fetchPage(task('needs-premium.test', '/'))).result;
    expect(again).toMatchObject({ outcome: 'fetched', tier: 'premium', credits: 10 });
    expect(await timed('tier="premium",outcome="fetched"')).toBe(2);
    expect(await timed('tier="basic",outcome="fetched"')).toBe(1);
  });

  it('obeys robots.txt when the crawl asks: disallowed links left out, a disallowed page neither fetched nor billed, its Crawl-delay told', async () => {
    const home = (await crawlPages.fetchPage(task('maps.test', '/', { scope_domain: 'maps.test', respect_robots: true }))).result;
    expect(home).toMatchObject({ outcome: 'fetched', robots_disallowed: 1 });
    expect(home.crawl_delay_ms).toBeUndefined();
    expect(home.links).toEqual(
      ['/about', '/shoes', '/hats'].map((path) => web.url('maps.test', path)).concat(web.url('shop.maps.test', '/sale')),
    );

    const before = web.hits('maps.test', '/private/area');
    const refused = (await crawlPages.fetchPage(task('maps.test', '/private/area', { scope_domain: 'maps.test', respect_robots: true })))
      .result;
    expect(refused).toMatchObject({ outcome: 'disallowed', credits: 0, opened: false, links: [] });
    expect(web.hits('maps.test', '/private/area')).toBe(before);

    const polite = (await crawlPages.fetchPage(task('polite.test', '/', { scope_domain: 'polite.test', respect_robots: true }))).result;
    expect(polite).toMatchObject({
      crawl_delay_ms: 1_000,
      robots_disallowed: 1,
      links: ['/a', '/b', '/c'].map((path) => web.url('polite.test', path)),
    });

    // Without respect_robots the same page is an ordinary one.
    const plain = (await crawlPages.fetchPage(task('maps.test', '/', { scope_domain: 'maps.test' }))).result;
    expect(plain.links).toContain(web.url('maps.test', '/private/area'));
    expect(plain.robots_disallowed).toBeUndefined();
  });

  it('fails a page blocked at every tier of the plan, free', async () => {
    const blocked = (
      await crawlPages.fetchPage(task('needs-both.test', STEALTH_GUARDED_PATH, { auto_tiers: ['basic'], frontier_id: frontierId++ }))
    ).result;
    // A plan with basic alone takes the same adaptive path, with nowhere to escalate: blocked, free.
    expect(blocked).toMatchObject({ outcome: 'failed', error: 'blocked', credits: 0, tier: 'basic', opened: false });
    const everywhere = (await crawlPages.fetchPage(task('needs-both.test', STEALTH_GUARDED_PATH))).result;
    // needs-both wants a rendered premium visit; this worker renders nothing, so premium is the last tier.
    expect(everywhere).toMatchObject({ outcome: 'failed', error: 'blocked', credits: 0, opened: false, links: [] });
    expect(everywhere.content).toBeUndefined();
  });

  it('fetches a task queued without auto_tiers (an older coordinator) at basic only', async () => {
    const old = task('needs-premium.test', STEALTH_GUARDED_PATH);
    delete old.auto_tiers;
    const result = (await crawlPages.fetchPage(old)).result;
    expect(result).toMatchObject({ outcome: 'failed', error: 'blocked', credits: 0, tier: 'basic' });
    expect(await stack.memory.recall('needs-premium.test')).not.toBe('js_render');
  });

  it('bills a 404 at the tier that got the answer, as a failed page', async () => {
    const gone = (await crawlPages.fetchPage(task('echo.test', '/status/404'))).result;
    expect(gone).toMatchObject({ outcome: 'failed_billed', status_code: 404, tier: 'basic', credits: 1, opened: false });
  });
});
