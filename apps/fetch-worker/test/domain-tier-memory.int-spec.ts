import { Kvm } from '@nats-io/kv';
import { waitFor } from '@trawl/testing';
import { AdaptiveFetcher, type AttemptOutcome } from '../src/stealth/adaptive-fetcher';
import { NatsDomainTierMemory } from '../src/stealth/domain-tier-memory';
import type { FetchTier } from '../src/stealth/tiers';
import { twoWorkers } from './support/two-workers';

const OK_HTML = `<html><body><p>${'Plenty of real content here. '.repeat(20)}</p></body></html>`;

/** A site that blocks every tier below `needs`. */
function siteNeeding(needs: FetchTier, tried: FetchTier[]) {
  const order: FetchTier[] = ['basic', 'js_render', 'premium', 'premium_js_render'];
  return async (tier: FetchTier): Promise<AttemptOutcome<FetchTier>> => {
    tried.push(tier);
    const status = order.indexOf(tier) >= order.indexOf(needs) ? 200 : 403;
    return { result: tier, page: { status, contentType: 'text/html', html: OK_HTML } };
  };
}

/** Two workers: two NATS connections, each with its own memory on the same bucket. */
describe(NatsDomainTierMemory.name, () => {
  const workers = twoWorkers('tier-memory');

  async function memories(ttlMs: number): Promise<{ bucket: string; a: NatsDomainTierMemory; b: NatsDomainTierMemory }> {
    const bucket = workers.bucket('domain_tiers');
    const a = await NatsDomainTierMemory.open(workers.a.js, bucket, ttlMs);
    const b = await NatsDomainTierMemory.open(workers.b.js, bucket, ttlMs);
    return { bucket, a, b };
  }

  it("lets each worker see the other's writes, per domain, IPv6 literals included", async () => {
    const { a, b } = await memories(60_000);
    expect(await b.recall('shop.test')).toBeUndefined();
    await a.remember('shop.test', 'premium');
    await b.remember('2001:db8::1', 'js_render');
    expect(await b.recall('shop.test')).toBe('premium');
    expect(await a.recall('2001:db8::1')).toBe('js_render');
    expect(await a.recall('other.test')).toBeUndefined();
    await b.remember('shop.test', 'premium_js_render');
    expect(await a.recall('shop.test')).toBe('premium_js_render');
  });

  it('applies a changed TTL to an existing bucket, keeping its entries', async () => {
    const { bucket, a } = await memories(60_000);
    await a.remember('shop.test', 'js_render');
    const reopened = await NatsDomainTierMemory.open(workers.b.js, bucket, 120_000);
    expect((await workers.b.jsm.streams.info(`KV_${bucket}`)).config.max_age).toBe(120_000 * 1_000_000);
    expect(await reopened.recall('shop.test')).toBe('js_render');
  });

  it('ignores a value it does not know as a tier', async () => {
    const { bucket, a } = await memories(60_000);
    const kv = await new Kvm(workers.a.js).open(bucket);
    await kv.put('shop.test', 'turbo');
    expect(await a.recall('shop.test')).toBeUndefined();
  });

  it('forgets a tier once the bucket max_age has passed since it was written', async () => {
    const ttlMs = 1_500;
    const { a, b } = await memories(ttlMs);
    await a.remember('shop.test', 'premium');
    const writtenAt = Date.now();
    expect(await b.recall('shop.test')).toBe('premium');
    await waitFor(async () => (await b.recall('shop.test')) === undefined, {
      timeoutMs: ttlMs + 10_000,
      intervalMs: 100,
      what: 'the remembered tier to expire',
    });
    expect(Date.now() - writtenAt).toBeGreaterThanOrEqual(ttlMs - 100);
  });

  it('makes a second worker start where the first one escalated to', async () => {
    const { a, b } = await memories(60_000);
    const triedByA: FetchTier[] = [];
    const triedByB: FetchTier[] = [];
    const first = await new AdaptiveFetcher({ memory: a }).fetch('shop.test', siteNeeding('premium', triedByA));
    expect(first.tier).toBe('premium');
    expect(triedByA).toEqual(['basic', 'js_render', 'premium']);
    const second = await new AdaptiveFetcher({ memory: b }).fetch('shop.test', siteNeeding('premium', triedByB));
    expect(second.tier).toBe('premium');
    expect(second.blocked).toEqual([]);
    expect(triedByB).toEqual(['premium']);
  });
});
