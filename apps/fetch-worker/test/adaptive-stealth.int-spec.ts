import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEgressAgent, EgressPolicy, parseHostMap, safeRequest } from '@trawl/egress';
import { MessagingConnection } from '@trawl/messaging';
import { uniqueSuffix } from '@trawl/testing';
import type { Agent } from 'undici';
import { closeAll, startFixtureProxies, type FixtureProxy } from '../../../test/fixtures/proxies';
import { fixtureHostMap, startFixtureWeb, type FixtureWeb } from '../../../test/fixtures/web';
import { STEALTH_GUARDED_PATH, STEALTH_TEXTS } from '../../../test/fixtures/web/sites/stealth';
import { BrowserPool } from '../src/browser/browser-pool';
import { EgressProxy } from '../src/egress-proxy';
import { parseProxyPools, ProxyRouter, UpstreamAgents } from '../src/proxies';
import { AdaptiveFetcher, type AttemptOutcome } from '../src/stealth/adaptive-fetcher';
import { NatsDomainTierMemory } from '../src/stealth/domain-tier-memory';
import { StealthError } from '../src/stealth/stealth.errors';
import { rendersJavaScript, stealthDomainOf, type FetchTier } from '../src/stealth/tiers';

jest.setTimeout(90_000);

const TENANT = '6f1c2a8e-4b7d-4e0a-9c1f-2d3e4f5a6b7c';

/**
 * mode=auto end to end inside the worker: real HTTP engine (safeRequest), real Chromium behind the
 * egress proxy, fixture standard and premium upstream proxies, the tier memory in real NATS KV.
 */
describe('adaptive stealth against the fixture web', () => {
  let web: FixtureWeb;
  let proxies: Record<string, FixtureProxy>;
  let policy: EgressPolicy;
  let directAgent: Agent;
  let agents: UpstreamAgents;
  let egressProxy: EgressProxy;
  let browsers: BrowserPool;
  let tempRoot: string;
  let nats: MessagingConnection;
  let bucket: string;
  let fetcher: AdaptiveFetcher;
  let router: ProxyRouter;
  const tried: FetchTier[] = [];

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxies = await startFixtureProxies(['standard', 'premium']);
    policy = new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) });
    directAgent = createEgressAgent(policy);
    agents = new UpstreamAgents(policy);
    router = new ProxyRouter(parseProxyPools(`standard=${proxies.standard.url};premium=${proxies.premium.url}`));
    egressProxy = new EgressProxy({ policy });
    tempRoot = await mkdtemp(join(tmpdir(), 'trawl-stealth-test-'));
    browsers = new BrowserPool({ proxy: egressProxy, browsers: 1, pagesPerBrowser: 2, launch: { tempRoot } });
    await browsers.start();
    nats = await MessagingConnection.connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name: 'stealth-e2e' });
    bucket = `domain_tiers_${uniqueSuffix()}`;
    fetcher = new AdaptiveFetcher({ memory: await NatsDomainTierMemory.open(nats.js, bucket, 60_000) });
  });

  afterAll(async () => {
    await browsers?.close();
    await egressProxy?.close();
    await agents?.close();
    await directAgent?.close();
    await closeAll(proxies ?? {});
    await web?.close();
    await nats?.jsm.streams.delete(`KV_${bucket}`).catch(() => undefined);
    await nats?.close();
    await rm(tempRoot, { recursive: true, force: true });
  });

  beforeEach(() => {
    tried.splice(0);
    for (const proxy of Object.values(proxies)) proxy.resetHits();
  });

  /** One attempt as the worker would make it: engine by tier, upstream by the router. */
  async function attempt(url: string, tier: FetchTier): Promise<AttemptOutcome<string>> {
    tried.push(tier);
    const choice = await router.choose({ tier, tenantId: TENANT });
    if (rendersJavaScript(tier)) {
      return browsers.withPage({ deadlineAt: Date.now() + 30_000, upstream: () => choice?.url }, async ({ page }) => {
        const response = await page.goto(url, { timeout: 20_000, waitUntil: 'load' });
        const html = await page.content();
        return { result: html, page: { status: response?.status() ?? 0, contentType: response?.headers()['content-type'], html } };
      });
    }
    const answer = await safeRequest(policy, choice ? agents.agentFor(choice.url) : directAgent, url);
    const html = answer.body.toString('utf8');
    return { result: html, page: { status: answer.status, contentType: answer.contentType, html } };
  }

  const fetchAuto = (url: string) => fetcher.fetch(stealthDomainOf(url), (tier) => attempt(url, tier));

  it('serves an ordinary page at basic', async () => {
    const answer = await fetchAuto(web.url('other.test', '/x'));
    expect(answer.tier).toBe('basic');
    expect(tried).toEqual(['basic']);
  });

  it('renders needs-js.test with JavaScript after basic found an empty shell', async () => {
    const answer = await fetchAuto(web.url('needs-js.test'));
    expect(answer.tier).toBe('js_render');
    expect(answer.result).toContain(STEALTH_TEXTS.needsJs);
    expect(answer.blocked.map((b) => b.reason)).toEqual(['needs_javascript']);
  });

  it('goes premium for needs-premium.test, through the premium proxy', async () => {
    const answer = await fetchAuto(web.url('needs-premium.test', STEALTH_GUARDED_PATH));
    expect(answer.tier).toBe('premium');
    expect(answer.result).toContain(STEALTH_TEXTS.needsPremium);
    expect(tried).toEqual(['basic', 'js_render', 'premium']);
    expect(proxies.premium.hits().map((hit) => hit.host)).toEqual([`needs-premium.test:${web.port}`]);
  });

  it('needs both for needs-both.test, then starts there on the next request', async () => {
    const first = await fetchAuto(web.url('needs-both.test', STEALTH_GUARDED_PATH));
    expect(first.tier).toBe('premium_js_render');
    expect(first.result).toContain(STEALTH_TEXTS.needsBoth);
    expect(first.blocked.map((b) => [b.tier, b.reason])).toEqual([
      ['basic', 'status'],
      ['js_render', 'status'],
      ['premium', 'needs_javascript'],
    ]);
    // Chromium's traffic went egress proxy → premium upstream (a tunnel the fixture proxy terminated).
    expect(
      proxies.premium.hits().filter((hit) => hit.kind === 'tunnel-http' && hit.host === `needs-both.test:${web.port}`).length,
    ).toBeGreaterThan(0);
    tried.splice(0);
    const second = await fetchAuto(web.url('needs-both.test', '/again'));
    expect(second.tier).toBe('premium_js_render');
    expect(tried).toEqual(['premium_js_render']);
  });

  it('answers all_tiers_blocked when even premium with JavaScript is refused', async () => {
    // echo.test/status/403 refuses every visitor, premium or not.
    const error = await fetchAuto(web.url('echo.test', '/status/403')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StealthError);
    expect(tried).toEqual(['basic', 'js_render', 'premium', 'premium_js_render']);
  });
});
