import { createEgressAgent, EgressError, EgressErrorCode, EgressPolicy, parseHostMap, safeRequest } from '@trawl/egress';
import { closeAll, FIXTURE_PROXY_HEADER, startFixtureProxies, startFixtureProxy, type FixtureProxy } from '../../../test/fixtures/proxies';
import { fixtureHostMap, startFixtureWeb, type FixtureWeb } from '../../../test/fixtures/web';
import { STEALTH_GUARDED_PATH, STEALTH_TEXTS } from '../../../test/fixtures/web/sites/stealth';
import { parseProxyPools } from '../src/proxies/proxy-pools';
import { ProxyRouter } from '../src/proxies/proxy-router';
import { UpstreamAgents } from '../src/proxies/upstream-agent';

const TENANT = '6f1c2a8e-4b7d-4e0a-9c1f-2d3e4f5a6b7c';

describe(UpstreamAgents.name, () => {
  let web: FixtureWeb;
  let proxies: Record<string, FixtureProxy>;
  let policy: EgressPolicy;
  let agents: UpstreamAgents;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxies = await startFixtureProxies(['standard', 'premium-us', 'premium-de']);
    policy = new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) });
    agents = new UpstreamAgents(policy, { connectTimeoutMs: 5_000 });
  });

  afterAll(async () => {
    await agents.close();
    await closeAll(proxies);
    await web.close();
  });

  beforeEach(() => {
    web.resetHits();
    for (const proxy of Object.values(proxies)) proxy.resetHits();
  });

  it('reaches needs-premium.test through the premium proxy, which tunnels to the address the policy checked', async () => {
    const answer = await safeRequest(
      policy,
      agents.agentFor(proxies['premium-us'].url),
      web.url('needs-premium.test', STEALTH_GUARDED_PATH),
    );
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toContain(STEALTH_TEXTS.needsPremium);
    expect(answer.headers[FIXTURE_PROXY_HEADER]).toBe('premium-us');
    expect(proxies['premium-us'].hits()).toEqual([
      { kind: 'tunnel-http', authority: `127.0.0.1:${web.port}`, path: STEALTH_GUARDED_PATH, host: `needs-premium.test:${web.port}` },
    ]);
    expect(proxies.standard.hits()).toEqual([]);
  });

  it('is refused by needs-premium.test through the standard proxy and directly', async () => {
    const viaStandard = await safeRequest(
      policy,
      agents.agentFor(proxies.standard.url),
      web.url('needs-premium.test', STEALTH_GUARDED_PATH),
    );
    expect(viaStandard.status).toBe(403);
    expect(viaStandard.body.toString()).not.toContain(STEALTH_TEXTS.needsPremium);
    expect(proxies.standard.hits()).toHaveLength(1);
    const directAgent = createEgressAgent(policy);
    const direct = await safeRequest(policy, directAgent, web.url('needs-premium.test', STEALTH_GUARDED_PATH)).finally(() =>
      directAgent.close(),
    );
    expect(direct.status).toBe(403);
  });

  it('speaks TLS to the target end to end through the tunnel and checks its certificate', async () => {
    const error = await safeRequest(policy, agents.agentFor(proxies['premium-us'].url), web.httpsUrl('badtls.test', '/echo')).catch(
      (e: unknown) => e,
    );
    expect((error as EgressError).code).toBe(EgressErrorCode.ConnectFailed);
    expect(proxies['premium-us'].hits()).toEqual([{ kind: 'tunnel-tls', authority: `127.0.0.1:${web.tlsPort}`, path: '' }]);
  });

  it.each([
    ['a loopback literal', (w: FixtureWeb) => `http://127.0.0.1:${w.port}/secret`],
    ['localhost', (w: FixtureWeb) => `http://localhost:${w.port}/secret`],
    ['a redirect hop to loopback', (w: FixtureWeb) => w.url('redirect.test', '/to-loopback')],
  ])('refuses %s through the proxy before the proxy is asked anything about it', async (_what, target) => {
    const error = await safeRequest(policy, agents.agentFor(proxies['premium-us'].url), target(web)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EgressError);
    expect((error as EgressError).code).toBe(EgressErrorCode.BlockedAddress);
    expect(web.hits('127.0.0.1', '/secret') + web.hits('localhost', '/secret')).toBe(0);
    expect(proxies['premium-us'].hits().filter((hit) => hit.path === '/secret')).toEqual([]);
  });

  it('refuses at connect time a name that resolves to loopback, even when the URL check is skipped', async () => {
    // The agent on its own, without safeRequest's per-hop check: its connector resolves through the policy.
    const { request } = await import('undici');
    const error = await request(`http://localhost:${web.port}/secret`, { dispatcher: agents.agentFor(proxies.standard.url) }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(EgressError);
    expect(proxies.standard.hits()).toEqual([]);
    expect(web.hits('localhost', '/secret')).toBe(0);
  });

  it('goes through the pool and country the router chose, with proxy credentials', async () => {
    const de = await startFixtureProxy({ name: 'premium-de-auth', credentials: { username: 'trawl', password: 'p@ss;word' } });
    try {
      const pools = parseProxyPools(`standard=${proxies.standard.url};premium.us=${proxies['premium-us'].url};premium.de=${de.url}`);
      const router = new ProxyRouter(pools);
      const choice = await router.choose({ tier: 'premium', country: 'de', tenantId: TENANT });
      expect(choice?.pool).toBe('premium.de');
      const answer = await safeRequest(policy, agents.agentFor(choice?.url ?? ''), web.url('echo.test', '/echo'));
      const echoed = JSON.parse(answer.body.toString()) as { headers: Record<string, string> };
      expect(echoed.headers['x-fixture-via']).toBe('premium-de-auth');
      expect(echoed.headers['proxy-authorization']).toBeUndefined();
      expect(de.hits().map((hit) => hit.kind)).toEqual(['tunnel-http']);
    } finally {
      await de.close();
    }
  });

  it('fails with connect_failed when the proxy refuses the credentials', async () => {
    const locked = await startFixtureProxy({ name: 'premium-locked', credentials: { username: 'trawl', password: 'right' } });
    try {
      const wrong = locked.url.replace('right', 'wrong');
      const error = await safeRequest(policy, agents.agentFor(wrong), web.url('needs-premium.test', STEALTH_GUARDED_PATH)).catch(
        (e: unknown) => e,
      );
      expect((error as EgressError).code).toBe(EgressErrorCode.ConnectFailed);
      expect(String((error as Error).message)).not.toContain('wrong');
      expect(locked.hits().map((hit) => hit.kind)).toEqual(['refused']);
      expect(web.hits('needs-premium.test')).toBe(0);
    } finally {
      await locked.close();
    }
  });
});
