import { CrawlProgress, decideCrawl } from './crawl-completion';

const progress = (over: Partial<CrawlProgress> = {}): CrawlProgress => ({
  itemsFound: 5,
  maxItems: 100,
  pagesDispatched: 10,
  maxPages: 100,
  hasQueued: true,
  hasInFlight: true,
  hasPendingContent: false,
  seed: 'fetched',
  sitemapPending: false,
  sitemapUrls: 0,
  ...over,
});

describe(decideCrawl.name, () => {
  it('continues while pages are queued or in flight and no limit is reached', () => {
    expect(decideCrawl(progress())).toEqual({ kind: 'continue' });
    expect(decideCrawl(progress({ hasQueued: false }))).toEqual({ kind: 'continue' });
    expect(decideCrawl(progress({ hasInFlight: false }))).toEqual({ kind: 'continue' });
  });

  it('fails with seed_unreachable when the start URL could not be fetched, or robots.txt disallows it', () => {
    expect(decideCrawl(progress({ seed: 'failed', itemsFound: 0 }))).toEqual({
      kind: 'failed',
      code: 'seed_unreachable',
      detail: 'The start URL could not be fetched.',
    });
    expect(decideCrawl(progress({ seed: 'disallowed', itemsFound: 0 }))).toEqual({
      kind: 'failed',
      code: 'seed_unreachable',
      detail: "The site's robots.txt disallows the start URL.",
    });
  });

  it('goes on without its start page when its sitemaps are still to be read, or gave URLs', () => {
    expect(decideCrawl(progress({ seed: 'failed', sitemapPending: true }))).toEqual({ kind: 'continue' });
    expect(decideCrawl(progress({ seed: 'disallowed', sitemapUrls: 3 }))).toEqual({ kind: 'continue' });
  });

  it('waits for its sitemaps before it ends for lack of work', () => {
    expect(decideCrawl(progress({ hasQueued: false, hasInFlight: false, itemsFound: 0, sitemapPending: true }))).toEqual({
      kind: 'continue',
    });
  });

  it('completes without a stop_reason when nothing is left to open', () => {
    expect(decideCrawl(progress({ hasQueued: false, hasInFlight: false }))).toEqual({ kind: 'completed', stopReason: null });
  });

  it('fails with no_items_found when nothing is left and nothing was kept', () => {
    expect(decideCrawl(progress({ hasQueued: false, hasInFlight: false, itemsFound: 0 }))).toMatchObject({
      kind: 'failed',
      code: 'no_items_found',
    });
  });

  it('completes at max_items at once, even with pages in flight', () => {
    expect(decideCrawl(progress({ itemsFound: 100 }))).toEqual({ kind: 'completed', stopReason: 'max_items' });
  });

  it('waits at max_items for kept pages still waiting for their HTML', () => {
    expect(decideCrawl(progress({ itemsFound: 100, hasPendingContent: true }))).toEqual({ kind: 'continue' });
  });

  it('completes at max_pages once every dispatched page answered and work was left', () => {
    expect(decideCrawl(progress({ pagesDispatched: 100 }))).toEqual({ kind: 'continue' });
    expect(decideCrawl(progress({ pagesDispatched: 100, hasInFlight: false }))).toEqual({
      kind: 'completed',
      stopReason: 'max_pages',
    });
  });

  it('names max_pages when both limits are reached together', () => {
    expect(decideCrawl(progress({ pagesDispatched: 100, itemsFound: 100, hasInFlight: false }))).toEqual({
      kind: 'completed',
      stopReason: 'max_pages',
    });
    expect(decideCrawl(progress({ pagesDispatched: 100, itemsFound: 100, hasInFlight: false, hasPendingContent: true }))).toEqual({
      kind: 'completed',
      stopReason: 'max_pages',
    });
  });
});
