import { KnownFrontierKeys } from './known-frontier-keys';
import { keyOf } from './link-intake';

const CRAWL_A = '00000000-0000-4000-8000-00000000000a';
const CRAWL_B = '00000000-0000-4000-8000-00000000000b';
const candidate = (path: string) => ({ url: `https://site.test${path}`, key: keyOf(`https://site.test${path}`) });

describe(KnownFrontierKeys.name, () => {
  describe('unknown', () => {
    it('keeps every candidate until keys are remembered, in their order', () => {
      const known = new KnownFrontierKeys(10);
      const candidates = [candidate('/a'), candidate('/b')];
      expect(known.unknown(CRAWL_A, candidates)).toEqual(candidates);
    });

    it("drops candidates the crawl's frontier is known to hold, and only for that crawl", () => {
      const known = new KnownFrontierKeys(10);
      known.remember(CRAWL_A, [candidate('/a').key]);

      expect(known.unknown(CRAWL_A, [candidate('/a'), candidate('/b')]).map((c) => c.url)).toEqual(['https://site.test/b']);
      expect(known.unknown(CRAWL_B, [candidate('/a')]).map((c) => c.url)).toEqual(['https://site.test/a']);
    });
  });

  describe('remember', () => {
    it('forgets the oldest keys past its capacity, so they are asked of Postgres again', () => {
      const known = new KnownFrontierKeys(2);
      known.remember(CRAWL_A, [candidate('/1').key, candidate('/2').key]);
      known.remember(CRAWL_A, [candidate('/3').key]);

      expect(known.size).toBe(2);
      expect(known.unknown(CRAWL_A, [candidate('/1'), candidate('/2'), candidate('/3')]).map((c) => c.url)).toEqual([
        'https://site.test/1',
      ]);
    });

    it('remembers nothing at capacity 0', () => {
      const known = new KnownFrontierKeys(0);
      known.remember(CRAWL_A, [candidate('/a').key]);
      expect(known.unknown(CRAWL_A, [candidate('/a')])).toHaveLength(1);
    });
  });
});
