import { collectCandidates, IntakeRules, passesPatterns, wantsLinksAt } from './link-intake';

const rules = (over: Partial<IntakeRules> = {}): IntakeRules => ({
  depth: null,
  includePatterns: [],
  excludePatterns: [],
  followLinks: true,
  ...over,
});

describe('link intake', () => {
  describe(passesPatterns.name, () => {
    it('keeps a URL containing an include text and none of the exclude texts', () => {
      const r = rules({ includePatterns: ['/products/', '/blog/'], excludePatterns: ['/reviews'] });
      expect(passesPatterns('https://a.com/products/1', r)).toBe(true);
      expect(passesPatterns('https://a.com/blog/x', r)).toBe(true);
      expect(passesPatterns('https://a.com/about', r)).toBe(false);
      expect(passesPatterns('https://a.com/products/1/reviews', r)).toBe(false);
    });

    it('keeps everything when no include pattern is set', () => {
      expect(passesPatterns('https://a.com/x', rules())).toBe(true);
      expect(passesPatterns('https://a.com/x', rules({ excludePatterns: ['/x'] }))).toBe(false);
    });
  });

  describe(wantsLinksAt.name, () => {
    it('opens pages nearer than the depth limit', () => {
      expect(wantsLinksAt(1, rules({ depth: 1 }))).toBe(false);
      expect(wantsLinksAt(1, rules({ depth: 2 }))).toBe(true);
      expect(wantsLinksAt(50, rules())).toBe(true);
    });
  });

  describe(collectCandidates.name, () => {
    it('drops links past the depth limit and duplicates across pages, first met wins', () => {
      const { candidates, duplicates } = collectCandidates(
        [
          { pageDepth: 0, pageId: 1, links: ['http://a.com/x', 'http://a.com/y'] },
          { pageDepth: 1, pageId: 2, links: ['https://www.a.com/x/', 'http://a.com/z'] },
        ],
        rules({ depth: 2 }),
      );
      expect(candidates.map((c) => [c.url, c.depth])).toEqual([
        ['http://a.com/x', 1],
        ['http://a.com/y', 1],
        ['http://a.com/z', 2],
      ]);
      expect(duplicates).toBe(1);
      expect(collectCandidates([{ pageDepth: 2, pageId: 3, links: ['http://a.com/q'] }], rules({ depth: 2 })).candidates).toEqual([]);
    });
  });
});
