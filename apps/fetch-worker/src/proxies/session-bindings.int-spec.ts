import { MessagingConnection } from '@trawl/messaging';
import { uniqueSuffix, waitFor } from '@trawl/testing';
import { parseProxyPools } from './proxy-pools';
import { ProxyRouter } from './proxy-router';
import { NatsSessionBindings } from './session-bindings';

jest.setTimeout(30_000);

const TENANT = '6f1c2a8e-4b7d-4e0a-9c1f-2d3e4f5a6b7c';
const POOLS = parseProxyPools('standard=http://s1:1|http://s2:1|http://s3:1;premium.us=http://us1:1|http://us2:1');

/** Two workers: two connections, each with its own router on the same bucket. */
describe(NatsSessionBindings.name, () => {
  let workerA: MessagingConnection;
  let workerB: MessagingConnection;
  const buckets: string[] = [];

  beforeAll(async () => {
    const servers = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
    [workerA, workerB] = await Promise.all([
      MessagingConnection.connect({ servers, name: 'session-bindings-a', requestTimeoutMs: 15_000 }),
      MessagingConnection.connect({ servers, name: 'session-bindings-b', requestTimeoutMs: 15_000 }),
    ]);
  });

  afterAll(async () => {
    await Promise.all(buckets.map((bucket) => workerA.jsm.streams.delete(`KV_${bucket}`).catch(() => undefined)));
    await Promise.all([workerA.close(), workerB.close()]);
  });

  async function routers(ttlMs: number): Promise<[ProxyRouter, ProxyRouter]> {
    const bucket = `proxy_sessions_${uniqueSuffix()}`;
    buckets.push(bucket);
    const a = await NatsSessionBindings.open(workerA.js, bucket, ttlMs);
    const b = await NatsSessionBindings.open(workerB.js, bucket, ttlMs);
    return [new ProxyRouter(POOLS, a), new ProxyRouter(POOLS, b)];
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
    const [a, b] = await routers(60_000);
    // A worker with an older configuration bound the session to a proxy since removed.
    const bucket = buckets[buckets.length - 1];
    const old = await NatsSessionBindings.open(workerA.js, bucket, 60_000);
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
