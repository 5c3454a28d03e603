import { storableText } from './crawl-page.service';
import { CrawlPageResultV1 } from '@trawl/contracts';
import { fitResult } from './result-size';

const result = (overrides: Partial<CrawlPageResultV1> = {}): CrawlPageResultV1 => ({
  v: 1,
  crawl_id: '00000000-0000-4000-8000-000000000001',
  frontier_id: 1,
  attempt: 1,
  outcome: 'fetched',
  credits: 1,
  tier: 'basic',
  opened: true,
  links: ['https://example.com/a'],
  duplicate_links: 0,
  ...overrides,
});
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe(fitResult.name, () => {
  it('leaves a result that fits unchanged', () => {
    const small = result({ content: '<p>small</p>' });
    expect(fitResult(small, 10_000)).toEqual({ result: small, trimmed: { content: false, links: 0 } });
  });

  it('drops the content when it does not fit, keeping the links', () => {
    const { result: fitted, trimmed } = fitResult(result({ content: 'x'.repeat(5_000) }), 2_000);
    expect(fitted.content).toBeUndefined();
    expect(fitted.links).toEqual(['https://example.com/a']);
    expect(trimmed).toEqual({ content: true, links: 0 });
  });

  it('counts the content in UTF-8 bytes and JSON escapes, not characters', () => {
    // 700 characters, but 2,100 bytes of UTF-8 (and quotes escape to two bytes).
    expect(fitResult(result({ content: '€'.repeat(700) }), 1_500).trimmed.content).toBe(true);
    expect(fitResult(result({ content: '"'.repeat(700) }), 1_000).trimmed.content).toBe(true);
  });

  it('drops links from the end when the links alone do not fit', () => {
    const links = Array.from({ length: 1_000 }, (_, i) => `https://example.com/page/${i}`);
    const { result: fitted, trimmed } = fitResult(result({ links }), 10_000);
    expect(bytes(fitted)).toBeLessThanOrEqual(10_000);
    expect(fitted.links).toEqual(links.slice(0, fitted.links.length));
    expect(trimmed.links).toBe(1_000 - fitted.links.length);
    expect(fitted.links.length).toBeGreaterThan(200);
  });
});

describe(storableText.name, () => {
  it('replaces NUL characters, which Postgres text cannot hold, and leaves other text alone', () => {
    expect(storableText('<p>a\u0000b</p>')).toBe('<p>a\uFFFDb</p>');
    expect(storableText('<p>ok</p>')).toBe('<p>ok</p>');
    expect(storableText(undefined)).toBeUndefined();
  });
});
