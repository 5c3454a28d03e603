import { waitFor } from '@trawl/testing';
import { parseProxyPools } from '../src/proxies/proxy-pools';
import { ProxyRouter } from '../src/proxies/proxy-router';
import { NatsSessionBindings } from '../src/proxies/session-bindings';
import { twoWorkers } from './support/two-workers';

const TENANT = '6f1c2a8e-4b7d-4e0a-9c1f-2d3e4f5a6b7c';
const POOLS = parseProxyPools('standard=http://s1:1|http://s2:1|http://s3:1;premium.us=http://us1:1|http://us2:1');

/** Two workers: two connections, each with its own router on the same bucket. */
describe(NatsSessionBindings.name, () => {
  const workers = twoWorkers('session-bindings');

  async function routers(ttlMs: number): Promise<[ProxyRouter, ProxyRouter, string]> {
    const bucket = workers.bucket('proxy_sessions');
    const a = await NatsSessionBindings.open(workers.a.js, bucket, ttlMs);
    const b = await NatsSessionBindings.open(workers.b.js, bucket, ttlMs);
    return [new ProxyRouter(POOLS, a), new ProxyRouter(POOLS, b), bucket];
  }

  it('makes two workers racing on a new session agree on one proxy, though each proposed another', async () => {
    const [a, b] = await routers(60_000);
    // Worker B's rotation is one step ahead, so the two propose different proxies.
    await b.choose({ tier: 'basic', tenantId: TENANT });
    const [fromA, fromB] = await Promise.all([
      a.choose({ tier: 'basic', sessionId: 42, tenantId: TENANT }),
      b.choose({ tier: 'basic', sessionId: 42, tenantId: TENANT }),
    ]);
    expect(fromA?.id).toBeDefined();
    expect(fromB?.id).toBe(fromA?.id);
    for (let i = 0; i < 3; i++) {
      expect((await b.choose({ tier: 'basic', sessionId: 42, tenantId: TENANT }))?.id).toBe(fromA?.id);
      expect((await a.choose({ tier: 'basic', sessionId: 42, tenantId: TENANT }))?.id).toBe(fromA?.id);
    }
    const us = await a.choose({ tier: 'premium', country: 'us', sessionId: 42, tenantId: TENANT });
    expect(us?.pool).toBe('premium.us');
    expect((await b.choose({ tier: 'premium', country: 'us', sessionId: 42, tenantId: TENANT }))?.id).toBe(us?.id);
  });

  it('moves a session whose bound proxy left the configuration, for every worker', async () => {
    const [a, b, bucket] = await routers(60_000);
    // A worker with an older configuration bound the session to a proxy since removed.
    const old = await NatsSessionBindings.open(workers.a.js, bucket, 60_000);
    expect(await old.bind(`${TENANT}.9.standard`, 'standard#0123456789ab')).toBe('standard#0123456789ab');
    const moved = await a.choose({ tier: 'basic', sessionId: 9, tenantId: TENANT });
    expect(moved?.id).toMatch(/^standard#/);
    expect(moved?.id).not.toBe('standard#0123456789ab');
    expect((await b.choose({ tier: 'basic', sessionId: 9, tenantId: TENANT }))?.id).toBe(moved?.id);
  });

  it('lets a binding expire at the bucket max_age counted from its first use, not its last', async () => {
    const ttlMs = 2_000;
    const [a, b] = await routers(ttlMs);
    const boundAt = Date.now();
    const first = await a.choose({ tier: 'basic', sessionId: 5, tenantId: TENANT });
    // Used again and again by worker B: if use extended the binding, it would never expire.
    const changed = await waitFor(
      async () => {
        const now = await b.choose({ tier: 'basic', sessionId: 5, tenantId: TENANT });
        if (now?.id !== first?.id) return { at: Date.now(), id: now?.id };
        return undefined;
      },
      { timeoutMs: ttlMs + 10_000, intervalMs: 100, what: 'the session binding to expire' },
    );
    expect(changed.at - boundAt).toBeGreaterThanOrEqual(ttlMs - 100);
    // The new binding is sticky in turn, for both workers.
    expect((await a.choose({ tier: 'basic', sessionId: 5, tenantId: TENANT }))?.id).toBe(changed.id);
  });
});
