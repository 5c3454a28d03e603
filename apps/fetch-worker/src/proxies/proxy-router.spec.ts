import { parseProxyPools } from './proxy-pools';
import { ProxyRouter } from './proxy-router';
import { ProxyError, ProxyErrorCode } from './proxy.errors';
import type { SessionBindings } from './session-bindings';

const TENANT = '6f1c2a8e-4b7d-4e0a-9c1f-2d3e4f5a6b7c';
const POOLS =
  'standard=http://s1:1|http://s2:1;premium=http://p1:1|http://p2:1;premium.us=http://us1:1|http://us2:1;premium.de=http://de1:1';

/** Create-if-absent bindings in memory, as the NATS bucket behaves while no binding expires. */
class MemoryBindings implements SessionBindings {
  readonly store = new Map<string, string>();
  async bind(key: string, candidate: string): Promise<string> {
    if (!this.store.has(key)) this.store.set(key, candidate);
    return this.store.get(key) as string;
  }
  async rebind(key: string, id: string): Promise<void> {
    this.store.set(key, id);
  }
}

function hostOf(url: string | undefined): string | undefined {
  return url === undefined ? undefined : new URL(url).hostname;
}

describe(ProxyRouter.name, () => {
  describe('choose', () => {
    it('routes basic and js_render through the standard pool, premium tiers through premium', async () => {
      const router = new ProxyRouter(parseProxyPools(POOLS));
      expect((await router.choose({ tier: 'basic', tenantId: TENANT }))?.pool).toBe('standard');
      expect((await router.choose({ tier: 'js_render', tenantId: TENANT }))?.pool).toBe('standard');
      expect((await router.choose({ tier: 'premium', tenantId: TENANT }))?.pool).toBe('premium');
      expect((await router.choose({ tier: 'premium_js_render', tenantId: TENANT }))?.pool).toBe('premium');
    });

    it('uses premium.<country> for a premium tier with proxy_country, and ignores the country below premium', async () => {
      const router = new ProxyRouter(parseProxyPools(POOLS));
      const us = await router.choose({ tier: 'premium', country: 'us', tenantId: TENANT });
      expect(us).toMatchObject({ pool: 'premium.us', country: 'us' });
      expect(hostOf(us?.url)).toMatch(/^us[12]$/);
      expect((await router.choose({ tier: 'basic', country: 'us', tenantId: TENANT }))?.pool).toBe('standard');
    });

    it('refuses a country without a pool with unknown_country, naming the available ones', async () => {
      const router = new ProxyRouter(parseProxyPools(POOLS));
      const error = await router.choose({ tier: 'premium', country: 'fr', tenantId: TENANT }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ProxyError);
      expect((error as ProxyError).code).toBe(ProxyErrorCode.UnknownCountry);
      expect((error as ProxyError).message).toBe('proxy_country fr is not available; available: de, us');
    });

    it('answers direct egress (undefined) for a tier whose pool is not configured', async () => {
      const router = new ProxyRouter(parseProxyPools('premium=http://p1:1'));
      expect(await router.choose({ tier: 'basic', tenantId: TENANT })).toBeUndefined();
      expect(await new ProxyRouter(parseProxyPools('')).choose({ tier: 'premium', tenantId: TENANT })).toBeUndefined();
    });

    it('falls back to the country pools for premium without a country when there is no premium pool', async () => {
      const router = new ProxyRouter(parseProxyPools('premium.us=http://us1:1;premium.de=http://de1:1'));
      const pools = new Set<string>();
      for (let i = 0; i < 4; i++) pools.add((await router.choose({ tier: 'premium', tenantId: TENANT }))?.pool ?? '');
      expect([...pools].sort()).toEqual(['premium.de', 'premium.us']);
    });

    it('rotates through a pool without session_id', async () => {
      const router = new ProxyRouter(parseProxyPools(POOLS));
      const hosts: (string | undefined)[] = [];
      for (let i = 0; i < 4; i++) hosts.push(hostOf((await router.choose({ tier: 'basic', tenantId: TENANT }))?.url));
      expect(hosts).toEqual(['s1', 's2', 's1', 's2']);
    });

    it('keeps the first proxy of a tenant session, per pool, while rotation moves on for others', async () => {
      const bindings = new MemoryBindings();
      const router = new ProxyRouter(parseProxyPools(POOLS), bindings);
      const first = await router.choose({ tier: 'basic', sessionId: 7, tenantId: TENANT });
      for (let i = 0; i < 3; i++) {
        expect((await router.choose({ tier: 'basic', sessionId: 7, tenantId: TENANT }))?.id).toBe(first?.id);
      }
      const otherTenant = '00000000-0000-4000-8000-000000000000';
      const others = new Set<string | undefined>();
      for (let i = 0; i < 2; i++) others.add((await router.choose({ tier: 'basic', sessionId: 7, tenantId: otherTenant }))?.id);
      expect(others.size).toBe(1);
      expect([...bindings.store.keys()].sort()).toEqual([`${otherTenant}.7.standard`, `${TENANT}.7.standard`]);
      await router.choose({ tier: 'premium', country: 'us', sessionId: 7, tenantId: TENANT });
      expect(bindings.store.has(`${TENANT}.7.premium.us`)).toBe(true);
    });

    it('moves a session whose bound proxy left the configuration', async () => {
      const bindings = new MemoryBindings();
      bindings.store.set(`${TENANT}.1.standard`, 'standard#000000000000');
      const router = new ProxyRouter(parseProxyPools(POOLS), bindings);
      const choice = await router.choose({ tier: 'basic', sessionId: 1, tenantId: TENANT });
      expect(choice?.id).toMatch(/^standard#/);
      expect(bindings.store.get(`${TENANT}.1.standard`)).toBe(choice?.id);
    });
  });
});
