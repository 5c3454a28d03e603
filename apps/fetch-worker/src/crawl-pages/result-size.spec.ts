import { storableText } from './crawl-page.service';
import { CrawlPageResultV1 } from '@trawl/contracts';
import { fitResult, jsonBytesAtMost } from './result-size';

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
    expect(fitResult(small, 10_000)).toEqual({ result: small, droppedLinks: 0 });
  });

  it('moves HTML over the inline limit out to be spilled, keeping the links', () => {
    const html = 'x'.repeat(5_000);
    const fitted = fitResult(result({ content: html }), 100_000, 2_000);
    expect(fitted.result.content).toBeUndefined();
    expect(fitted.spill).toBe(html);
    expect(fitted.result.links).toEqual(['https://example.com/a']);
    expect(fitted.droppedLinks).toBe(0);
  });

  it('moves HTML out when the rest of the result leaves it no room', () => {
    const links = Array.from({ length: 100 }, (_, i) => `https://example.com/page/${i}`);
    const fitted = fitResult(result({ content: 'y'.repeat(1_500), links }), 4_000, 2_000);
    expect(fitted.spill).toHaveLength(1_500);
    expect(fitted.result.links).toEqual(links);
  });

  it('counts the content in UTF-8 bytes and JSON escapes, not characters', () => {
    // 700 characters, but 2,100 bytes of UTF-8 (and quotes escape to two bytes).
    expect(fitResult(result({ content: '€'.repeat(700) }), 100_000, 1_500).spill).toBeDefined();
    expect(fitResult(result({ content: '"'.repeat(700) }), 100_000, 1_000).spill).toBeDefined();
    expect(fitResult(result({ content: 'a'.repeat(700) }), 100_000, 1_000).spill).toBeUndefined();
  });

  it('drops links from the end when the links alone do not fit', () => {
    const links = Array.from({ length: 1_000 }, (_, i) => `https://example.com/page/${i}`);
    const { result: fitted, droppedLinks } = fitResult(result({ links }), 10_000);
    expect(bytes(fitted)).toBeLessThanOrEqual(10_000);
    expect(fitted.links).toEqual(links.slice(0, fitted.links.length));
    expect(droppedLinks).toBe(1_000 - fitted.links.length);
    expect(fitted.links.length).toBeGreaterThan(200);
  });

  it('keeps room for the content_ref of spilled HTML when it drops links', () => {
    const links = Array.from({ length: 1_000 }, (_, i) => `https://example.com/page/${i}`);
    const fitted = fitResult(result({ links, content: 'z'.repeat(20_000) }), 10_000);
    const withRef = { ...fitted.result, content_ref: { chunks: 999_999, bytes: 999_999_999, id: 'A'.repeat(16) } };
    expect(bytes(withRef)).toBeLessThanOrEqual(10_000);
  });
});

describe(storableText.name, () => {
  it('replaces NUL characters, which Postgres text cannot hold, and leaves other text alone', () => {
    expect(storableText('<p>a\u0000b</p>')).toBe('<p>a\uFFFDb</p>');
    expect(storableText('<p>ok</p>')).toBe('<p>ok</p>');
    expect(storableText(undefined)).toBeUndefined();
  });
});

describe(jsonBytesAtMost.name, () => {
  it('is never below the JSON size, whatever the characters', () => {
    const values: unknown[] = [
      result({ content: '<p>plain</p>', links: ['https://example.com/a', 'https://example.com/b'] }),
      result({ content: '\u0000\u001f"\\\n€😀\ud800', error: 'x'.repeat(100) }),
      { nested: [[1.2345678901234567e-300, -0], { a: null, b: true, c: false }], empty: [] },
      '',
    ];
    for (const value of values) expect(jsonBytesAtMost(value)).toBeGreaterThanOrEqual(bytes(value));
  });
});
