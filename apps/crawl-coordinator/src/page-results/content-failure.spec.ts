import type { CrawlPageResultV1 } from '@trawl/contracts';
import { contentFailureReason } from './page-result.service';

const result = (overrides: Partial<CrawlPageResultV1>): CrawlPageResultV1 => ({
  v: 1,
  crawl_id: '00000000-0000-4000-8000-000000000001',
  frontier_id: 7,
  attempt: 1,
  outcome: 'fetched',
  credits: 1,
  tier: 'basic',
  opened: false,
  links: [],
  duplicate_links: 0,
  ...overrides,
});

describe(contentFailureReason.name, () => {
  it("gives a failed page's own reason, such as a body over the workers' MAX_BODY_BYTES", () => {
    expect(contentFailureReason(result({ outcome: 'failed', credits: 0, error: 'body_too_large' }))).toBe('body_too_large');
    expect(contentFailureReason(result({ outcome: 'failed_billed', error: 'http_404' }))).toBe('http_404');
    expect(contentFailureReason(result({ outcome: 'failed', credits: 0 }))).toBe('failed');
  });

  it('says the spilled HTML was lost when a fetched page still carries its content_ref', () => {
    expect(contentFailureReason(result({ content_ref: { chunks: 2, bytes: 700_000, id: 'x1' } }))).toBe('spilled_content_lost');
  });

  it('says there was no HTML for a fetched page without content (not an HTML page)', () => {
    expect(contentFailureReason(result({ content_type: 'application/pdf' }))).toBe('no_html');
  });
});
