import { columnNames } from './columns';

/** Why a crawl saw a URL and did not keep it, when no rule of the crawl says so by itself. */
export const SKIPPED_URL_REASONS = ['over_max_items', 'robots_disallowed'] as const;
export type SkippedUrlReason = (typeof SKIPPED_URL_REASONS)[number];

/**
 * A `crawl_skipped_urls` row: a URL a crawl saw and did not keep, and why. The coordinator writes
 * them (at most `MAX_SKIPPED_RECORDED` per crawl), the gateway reads them to answer where a URL went.
 * Migration: 1764000000190-crawl-url-fates.
 */
export interface CrawlSkippedUrlsRow {
  crawl_id: string;
  /** md5 of the URL's dedup key, as `crawl_frontier.url_key`. */
  url_key: Buffer;
  url: string;
  reason: SkippedUrlReason;
  /** The page it was a link of, or `sitemap` for a URL of the crawl's sitemaps. */
  found_on: string;
}

/** Skipped URLs a crawl records at most; past it, they are counted only. */
export const MAX_SKIPPED_RECORDED = 10_000;

export const CRAWL_SKIPPED_URLS_COLUMNS = columnNames<CrawlSkippedUrlsRow>({
  crawl_id: true,
  url_key: true,
  url: true,
  reason: true,
  found_on: true,
});
