import { urlFate, type FateRules, type UrlTrace } from './crawl-url-fate';

const rules: FateRules = { ended: false, scopeDomain: 'shop.test', includePatterns: [], excludePatterns: [] };
const kept = (url: string, over: Partial<NonNullable<UrlTrace['frontier']>> = {}): UrlTrace => ({
  frontier: { url, itemSeq: 3, state: 'done', pageOutcome: 'fetched', pageError: null, ...over },
});

describe(urlFate.name, () => {
  it('answers kept for a result, with its page', () => {
    expect(urlFate('https://shop.test/a', 'https://shop.test/a', kept('https://shop.test/a'), rules)).toMatchObject({
      fate: 'kept',
      result_url: 'https://shop.test/a',
      page: { state: 'fetched' },
    });
  });

  it('answers duplicate, naming the result, for the same URL written another way', () => {
    const fate = urlFate('http://www.shop.test/a/', 'http://www.shop.test/a/', kept('https://shop.test/a'), rules);
    expect(fate).toMatchObject({ fate: 'duplicate', result_url: 'https://shop.test/a' });
  });

  it("tells a kept page's failure code and where it waits", () => {
    const failed = kept('https://shop.test/a', { pageOutcome: 'failed_billed', pageError: 'http_404' });
    expect(urlFate('https://shop.test/a', 'https://shop.test/a', failed, rules).page).toEqual({ state: 'failed', error: 'http_404' });
    const queued = kept('https://shop.test/a', { state: 'queued', pageOutcome: null });
    expect(urlFate('https://shop.test/a', 'https://shop.test/a', queued, rules).page).toEqual({ state: 'queued' });
    expect(urlFate('https://shop.test/a', 'https://shop.test/a', queued, { ...rules, ended: true }).page).toEqual({ state: 'not_fetched' });
    const notFetched = kept('https://shop.test/a', { pageOutcome: null });
    expect(urlFate('https://shop.test/a', 'https://shop.test/a', notFetched, rules).page).toEqual({ state: 'not_fetched' });
  });

  it('answers start_url for the seed', () => {
    expect(urlFate('https://shop.test/', 'https://shop.test/', kept('https://shop.test/', { itemSeq: null }), rules).fate).toBe(
      'start_url',
    );
  });

  it('answers out_of_scope for another site, whatever the crawl holds of it', () => {
    expect(urlFate('https://other.test/x', 'https://other.test/x', {}, rules).fate).toBe('out_of_scope');
    expect(urlFate('https://blog.shop.test/x', 'https://blog.shop.test/x', {}, rules).fate).toBe('not_seen');
  });

  it('answers what the crawl recorded: over max_items, disallowed, with the page it was found on', () => {
    const over: UrlTrace = { skipped: { url: 'https://shop.test/z', reason: 'over_max_items', foundOn: 'https://shop.test/' } };
    expect(urlFate('https://shop.test/z', 'https://shop.test/z', over, rules)).toMatchObject({
      fate: 'over_max_items',
      found_on: 'https://shop.test/',
    });
    const robots: UrlTrace = { skipped: { url: 'https://shop.test/p', reason: 'robots_disallowed', foundOn: 'sitemap' } };
    expect(urlFate('https://shop.test/p', 'https://shop.test/p', robots, rules)).toMatchObject({
      fate: 'robots_disallowed',
      found_on: 'sitemap',
    });
  });

  it('names the exclude pattern, or says no include pattern matched', () => {
    const patterned = { ...rules, excludePatterns: ['?sort='], includePatterns: ['/products/'] };
    expect(urlFate('u', 'https://shop.test/products/1?sort=price', {}, patterned)).toMatchObject({ fate: 'excluded', pattern: '?sort=' });
    const fate = urlFate('u', 'https://shop.test/about', {}, patterned);
    expect(fate.fate).toBe('excluded');
    expect(fate.pattern).toBeUndefined();
  });

  it('answers not_seen for a URL of the site the crawl holds nothing of', () => {
    expect(urlFate('https://shop.test/deep', 'https://shop.test/deep', {}, rules).fate).toBe('not_seen');
  });
});
