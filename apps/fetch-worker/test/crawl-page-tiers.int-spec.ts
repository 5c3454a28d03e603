import pino from 'pino';
import { Registry } from 'prom-client';
import type { CrawlPageTaskV1 } from '@trawl/contracts';
import { createEgressAgent, EgressPolicy, parseHostMap } from '@trawl/egress';
import { deleteStreams, MessagingConnection } from '@trawl/messaging';
import { uniqueSuffix } from '@trawl/testing';
import { closeAll, FixtureProxy, startFixtureProxies } from '../../../test/fixtures/proxies';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../../../test/fixtures/web';
import { STEALTH_GUARDED_PATH, STEALTH_TEXTS } from '../../../test/fixtures/web/sites/stealth';
import { CaptchaPass } from '../src/captcha/captcha-pass';
import { CaptchaSolverClient } from '../src/captcha/captcha-solver.client';
import { CrawlPageFetcher } from '../src/crawl-pages/crawl-page-fetcher';
import { CrawlPageService } from '../src/crawl-pages/crawl-page.service';
import { HttpFetchEngine } from '../src/fetch-requests/http-fetch-engine';
import { TargetFetcher } from '../src/fetch-requests/target-fetcher';
import { HttpEngine } from '../src/page-fetch/http-engine';
import { PageFetchService } from '../src/page-fetch/page-fetch.service';
import { NatsSessionBindings, parseProxyPools, ProxyRouter, UpstreamAgents } from '../src/proxies';
import { AdaptiveFetcher, NatsDomainTierMemory } from '../src/stealth';
import { WorkerMetrics } from '../src/worker.metrics';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const TENANT_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';
const CRAWL_ID = '5d0c2c8e-2b1f-4c55-8a0e-6f7d1b2c3d4e';
const EVERY_HTTP_TIER = ['basic', 'premium'] as const;

/**
 * Crawl pages as Fetch requests in adaptive stealth mode (Crawl spec §1 and its cost rules), on the
 * HTTP engine against real things: fixture forward proxies as the upstream pools, the domain memory
 * in NATS KV, the fixture web's stealth sites. (Rendering tiers: crawl-tiers.e2e-spec.)
 */
describe('Crawl pages through adaptive stealth', () => {
  let web: FixtureWeb;
  let proxies: Record<string, FixtureProxy>;
  let messaging: MessagingConnection;
  let http: HttpEngine;
  let upstream: UpstreamAgents;
  let crawlPages: CrawlPageService;
  let memory: NatsDomainTierMemory;
  let frontierId = 1;
  const buckets = [`crawltiers${uniqueSuffix()}_sessions`, `crawltiers${uniqueSuffix()}_tiers`];

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxies = await startFixtureProxies(['standard', 'premium-a']);
    messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'crawl-tiers-int' });
    const policy = new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) });
    const agent = createEgressAgent(policy);
    http = new HttpEngine({ policy, agent, maxBodyBytes: 1024 * 1024 });
    upstream = new UpstreamAgents(policy);
    const pools = parseProxyPools(`standard=${proxies.standard.url};premium=${proxies['premium-a'].url}`);
    const proxyRouter = new ProxyRouter(pools, await NatsSessionBindings.open(messaging.js, buckets[0], 60_000));
    memory = await NatsDomainTierMemory.open(messaging.js, buckets[1], 60_000);
    const target = new TargetFetcher({
      engines: { http: new HttpFetchEngine(http, upstream) },
      captcha: new CaptchaPass(new CaptchaSolverClient({ policy, agent })),
      proxies: proxyRouter,
      stealth: new AdaptiveFetcher({ memory }),
    });
    const pages = new PageFetchService([http], { pageTimeoutMs: 20_000 }, new WorkerMetrics(new Registry()));
    crawlPages = new CrawlPageService(new CrawlPageFetcher({ pages, target, pageTimeoutMs: 20_000, maxBodyBytes: 1024 * 1024 }), {}, pino({ level: 'silent' }));
  });

  afterAll(async () => {
    await upstream?.close();
    await http?.close();
    await closeAll(proxies ?? {});
    await web?.close();
    if (messaging) {
      await deleteStreams(messaging.jsm, buckets.map((bucket) => `KV_${bucket}`));
      await messaging.close();
    }
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
    const landing = await crawlPages.fetchPage(task('needs-premium.test', '/'));
    expect(landing).toMatchObject({ outcome: 'fetched', tier: 'basic', credits: 1, opened: true });
    expect(landing.links).toEqual([web.url('needs-premium.test', STEALTH_GUARDED_PATH)]);

    const guarded = await crawlPages.fetchPage(task('needs-premium.test', STEALTH_GUARDED_PATH));
    expect(guarded).toMatchObject({ outcome: 'fetched', status_code: 200, tier: 'premium', credits: 10 });
    expect(guarded.content).toContain(STEALTH_TEXTS.needsPremium);
    // Remembered for the domain, shared by every worker: the next page starts at premium.
    expect(await memory.recall('needs-premium.test')).toBe('premium');
    const again = await crawlPages.fetchPage(task('needs-premium.test', '/'));
    expect(again).toMatchObject({ outcome: 'fetched', tier: 'premium', credits: 10 });
  });

  it('fails a page blocked at every tier of the plan, free', async () => {
    const blocked = await crawlPages.fetchPage(task('needs-both.test', STEALTH_GUARDED_PATH, { auto_tiers: ['basic'] , frontier_id: frontierId++ }));
    // A plan with basic alone takes the plain path: the guard's 403 is the page's answer.
    expect(blocked).toMatchObject({ outcome: 'failed', status_code: 403, error: 'http_403', credits: 0, tier: 'basic' });
    const everywhere = await crawlPages.fetchPage(task('needs-both.test', STEALTH_GUARDED_PATH));
    // needs-both wants a rendered premium visit; this worker renders nothing, so premium is the last tier.
    expect(everywhere).toMatchObject({ outcome: 'failed', error: 'blocked', credits: 0, opened: false, links: [] });
    expect(everywhere.content).toBeUndefined();
  });

  it('fetches a task queued without auto_tiers (an older coordinator) at basic only', async () => {
    const old = task('needs-premium.test', STEALTH_GUARDED_PATH);
    delete old.auto_tiers;
    const result = await crawlPages.fetchPage(old);
    expect(result).toMatchObject({ outcome: 'failed', status_code: 403, credits: 0, tier: 'basic' });
  });

  it('bills a 404 at the tier that got the answer, as a failed page', async () => {
    const gone = await crawlPages.fetchPage(task('echo.test', '/status/404'));
    expect(gone).toMatchObject({ outcome: 'failed_billed', status_code: 404, tier: 'basic', credits: 1, opened: false });
  });
});
