import type { CacheStatus, ContentStatus, FrontierState } from '@trawl/contracts';
import { columnNames } from './columns';

/**
 * A `crawl_frontier` row: one URL a crawl met. The gateway writes the start URL's and reads results
 * from it; the crawl coordinator claims, settles and inserts the rest. `id` is a `bigserial`.
 */
export interface CrawlFrontierRow {
  id: string;
  crawl_id: string;
  /** md5 of the URL's dedup key. */
  url_key: Buffer;
  url: string;
  depth: number;
  /** The result's number; `null` for a URL opened only for its links (the start URL). */
  item_seq: number | null;
  state: FrontierState;
  wants_links: boolean;
  wants_content: boolean;
  content_status: ContentStatus | null;
  attempt: number;
  lease_until: Date | null;
  /** How the page's last fetch ended (`PageOutcome`); null while it waits or was never fetched. Migration 1764000000190. */
  page_outcome: string | null;
  /** The failure's short code (`http_404`, `timeout`, `robots_txt`, …) of a page that failed. */
  page_error: string | null;
  /** Crawls with `max_age`: the page's last fetch came from a kept copy (`hit`) or not (`miss`). Migration 1764000000210. */
  page_cache: CacheStatus | null;
}

/** A column of `crawl_frontier`. */
export type CrawlFrontierColumn = keyof CrawlFrontierRow;

/** Every column of `crawl_frontier`. */
export const CRAWL_FRONTIER_COLUMNS = columnNames<CrawlFrontierRow>({
  id: true,
  crawl_id: true,
  url_key: true,
  url: true,
  depth: true,
  item_seq: true,
  state: true,
  wants_links: true,
  wants_content: true,
  content_status: true,
  attempt: true,
  lease_until: true,
  page_outcome: true,
  page_error: true,
  page_cache: true,
});
