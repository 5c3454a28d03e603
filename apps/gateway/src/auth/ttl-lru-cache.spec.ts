import { TtlLruCache } from './ttl-lru-cache';

describe(TtlLruCache.name, () => {
  let now = 0;
  const cache = (ttlMs: number, maxEntries: number) => new TtlLruCache<string, number>({ ttlMs, maxEntries, now: () => now });

  beforeEach(() => {
    now = 1_000;
  });

  describe('get', () => {
    it('returns an entry until its ttl has passed', () => {
      const c = cache(100, 10);
      c.set('a', 1);
      now += 99;
      expect(c.get('a')).toBe(1);
      now += 1;
      expect(c.get('a')).toBeUndefined();
      expect(c.size).toBe(0);
    });
  });

  describe('set', () => {
    it('drops the least recently used entry when full', () => {
      const c = cache(1_000, 2);
      c.set('a', 1);
      c.set('b', 2);
      c.get('a');
      c.set('c', 3);
      expect(c.get('b')).toBeUndefined();
      expect(c.get('a')).toBe(1);
      expect(c.get('c')).toBe(3);
    });

    it('keeps nothing when the ttl is 0', () => {
      const c = cache(0, 2);
      c.set('a', 1);
      expect(c.get('a')).toBeUndefined();
    });
  });
});
