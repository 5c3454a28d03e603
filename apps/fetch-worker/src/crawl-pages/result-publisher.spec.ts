import type { CrawlPageResultV1 } from '@trawl/contracts';
import { estimatedBytes } from './result-publisher';

function result(overrides: Partial<CrawlPageResultV1> = {}): CrawlPageResultV1 {
  return {
    v: 1,
    crawl_id: '7b0f4d2e-6f7a-4c55-9a53-2b1f0f0d8c11',
    frontier_id: 1,
    attempt: 1,
    outcome: 'fetched',
    status_code: 200,
    final_url: 'https://shop.test/a',
    credits: 1,
    tier: 'basic',
    opened: true,
    links: [],
    duplicate_links: 0,
    ...overrides,
  };
}

describe(estimatedBytes.name, () => {
  it.each([
    ['a bare result', result()],
    ['many links', result({ links: Array.from({ length: 500 }, (_, i) => `https://shop.test/p/${i}?q=${i}`) })],
    ['HTML full of characters JSON escapes', result({ content: '"\\\n\u0001<>&'.repeat(2_000) })],
    ['non-ASCII HTML', result({ content: 'ünïcødé ✓ 漢字'.repeat(1_000) })],
    ['a long error', result({ outcome: 'failed', error: 'x'.repeat(300) })],
  ])('is never below the real JSON size: %s', (_name, value) => {
    expect(estimatedBytes(value)).toBeGreaterThanOrEqual(Buffer.byteLength(JSON.stringify(value)));
  });
});
