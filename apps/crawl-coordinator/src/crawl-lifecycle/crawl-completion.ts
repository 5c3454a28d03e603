/** How the start URL's fetch ended: fetched, failed, or not fetched because robots.txt disallows it. */
export type SeedOutcome = 'fetched' | 'failed' | 'disallowed';

/** What the coordinator knows about a running crawl when it decides whether the crawl is over. */
export interface CrawlProgress {
  itemsFound: number;
  maxItems: number;
  pagesDispatched: number;
  maxPages: number;
  hasQueued: boolean;
  hasInFlight: boolean;
  /** Kept pages still waiting for their HTML (crawls with `output_format`). */
  hasPendingContent: boolean;
  /** How the start URL's fetch ended, when this decision follows its result (else `fetched`). */
  seed: SeedOutcome;
  /** The crawl's sitemaps are still to be read: they may bring URLs. */
  sitemapPending: boolean;
  /** URLs the crawl's sitemaps named. */
  sitemapUrls: number;
}

export type CrawlVerdict =
  | { kind: 'continue' }
  | { kind: 'completed'; stopReason: 'max_items' | 'max_pages' | null }
  | { kind: 'failed'; code: 'seed_unreachable' | 'no_items_found' | 'insufficient_credits' | 'internal_error'; detail: string };

/**
 * Crawl spec §3. `max_items` ends the crawl at once (with `output_format`, once the kept pages have
 * their HTML); `max_pages` ends it when every dispatched page has answered and work was left; when both
 * are reached together the reason is `max_pages`. Nothing left to open ends it without a reason, or as
 * `no_items_found` when nothing was kept.
 */
export function decideCrawl(p: CrawlProgress): CrawlVerdict {
  // A crawl its sitemaps seed goes on without its start page (docs/decisions/crawl-api.md, "Sitemaps").
  if (p.seed !== 'fetched' && !p.sitemapPending && p.sitemapUrls === 0) {
    const detail = p.seed === 'disallowed' ? "The site's robots.txt disallows the start URL." : 'The start URL could not be fetched.';
    return { kind: 'failed', code: 'seed_unreachable', detail };
  }
  const pagesExhausted = p.pagesDispatched >= p.maxPages;
  if (p.itemsFound >= p.maxItems) {
    if (p.hasPendingContent && !(pagesExhausted && !p.hasInFlight)) return { kind: 'continue' };
    return { kind: 'completed', stopReason: pagesExhausted ? 'max_pages' : 'max_items' };
  }
  if (p.hasInFlight || p.sitemapPending) return { kind: 'continue' };
  if (!p.hasQueued) {
    if (p.itemsFound === 0) {
      return { kind: 'failed', code: 'no_items_found', detail: 'The crawl found no URL to return.' };
    }
    return { kind: 'completed', stopReason: null };
  }
  if (pagesExhausted) return { kind: 'completed', stopReason: 'max_pages' };
  return { kind: 'continue' };
}
