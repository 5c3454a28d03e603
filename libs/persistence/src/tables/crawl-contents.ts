import { columnNames, nullableColumnNames } from './columns';

/**
 * A `crawl_contents` row: the kept HTML of a crawl's page (Crawl spec §3, `output_format: html`).
 * The crawl coordinator writes it from a page's result; the gateway serves it with the results.
 * Migration 1763798400000-init. As `pg` returns it: `bigint` as a string.
 */
export interface CrawlContentsRow {
  /** `bigint`: the page's `crawl_frontier.id`. */
  frontier_id: string;
  crawl_id: string;
  content_type: string | null;
  html: string;
  fetched_at: Date;
}

/** Every column of `crawl_contents`. */
export const CRAWL_CONTENTS_COLUMNS = columnNames<CrawlContentsRow>({
  frontier_id: true,
  crawl_id: true,
  content_type: true,
  html: true,
  fetched_at: true,
});

/** The columns of `crawl_contents` that may be `NULL`. */
export const CRAWL_CONTENTS_NULLABLE_COLUMNS = nullableColumnNames<CrawlContentsRow>({ content_type: true });
