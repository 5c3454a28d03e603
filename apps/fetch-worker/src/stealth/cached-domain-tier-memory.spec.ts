import { CachedDomainTierMemory, type DomainTierMemory } from './domain-tier-memory';
import type { FetchTier } from './tiers';

/** The shared memory as the other workers see it, counting reads. */
class SharedTiers implements DomainTierMemory {
  readonly store = new Map<string, FetchTier>();
  reads = 0;
  failNext = false;

  async recall(domain: string): Promise<FetchTier | undefined> {
    this.reads += 1;
    await Promise.resolve();
    if (this.failNext) {
      this.failNext = false;
      throw new Error('nats down');
    }
    return this.store.get(domain);
  }

  async remember(domain: string, tier: FetchTier): Promise<void> {
    this.store.set(domain, tier);
  }
}

describe(CachedDomainTierMemory.name, () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => (now = 1_000));

  it('reads the shared memory once per domain within its time, a missing tier included', async () => {
    const shared = new SharedTiers();
    const cached = new CachedDomainTierMemory(shared, 5_000, 100, clock);
    expect(await Promise.all([cached.recall('shop.test'), cached.recall('shop.test')])).toEqual([undefined, undefined]);
    expect(await cached.recall('shop.test')).toBeUndefined();
    expect(shared.reads).toBe(1);
  });

  it("sees another worker's lesson once its time has passed", async () => {
    const shared = new SharedTiers();
    const cached = new CachedDomainTierMemory(shared, 5_000, 100, clock);
    await cached.recall('shop.test');
    shared.store.set('shop.test', 'premium');
    now += 4_999;
    expect(await cached.recall('shop.test')).toBeUndefined();
    now += 1;
    expect(await cached.recall('shop.test')).toBe('premium');
    expect(shared.reads).toBe(2);
  });

  it('knows at once what it remembers itself, and writes it to the shared memory', async () => {
    const shared = new SharedTiers();
    const cached = new CachedDomainTierMemory(shared, 5_000, 100, clock);
    await cached.recall('shop.test');
    await cached.remember('shop.test', 'js_render');
    expect(await cached.recall('shop.test')).toBe('js_render');
    expect(shared.store.get('shop.test')).toBe('js_render');
    expect(shared.reads).toBe(1);
  });

  it('keeps no failed read', async () => {
    const shared = new SharedTiers();
    const cached = new CachedDomainTierMemory(shared, 5_000, 100, clock);
    shared.failNext = true;
    await expect(cached.recall('shop.test')).rejects.toThrow('nats down');
    shared.store.set('shop.test', 'premium');
    expect(await cached.recall('shop.test')).toBe('premium');
  });

  it('holds at most maxEntries domains, dropping the oldest', async () => {
    const shared = new SharedTiers();
    const cached = new CachedDomainTierMemory(shared, 5_000, 2, clock);
    for (const domain of ['a.test', 'b.test', 'c.test']) await cached.recall(domain);
    await cached.recall('c.test');
    await cached.recall('a.test');
    expect(shared.reads).toBe(4);
  });

  it('reads through every time with a time of 0', async () => {
    const shared = new SharedTiers();
    const cached = new CachedDomainTierMemory(shared, 0, 100, clock);
    await cached.recall('shop.test');
    await cached.recall('shop.test');
    expect(shared.reads).toBe(2);
  });
});
