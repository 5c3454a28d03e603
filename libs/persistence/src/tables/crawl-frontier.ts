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

/** The order each state's partial index keeps a crawl's rows in (migration 1763798400000-init). */
const PARTIAL_INDEX_ORDER = { queued: 'id', dispatched: 'lease_until' } as const;

/**
 * SQL for a boolean: whether the crawl `crawlId` (an SQL expression, e.g. `$1` or `c.id`) has a
 * page in `state`, read from the newest end of that state's partial index. A page leaving a state
 * leaves a dead entry in its index until vacuum removes it, and a crawl leaves its states oldest
 * first (pages are claimed in id order; leases are set at dispatch), so the oldest end is where
 * the dead entries pile up: `EXISTS` from that end walked ~85,000 of them (11 ms) in a
 * 100,000-page crawl, on every page result and dispatch pass. From the newest end it reads one.
 * (Postgres drops `ORDER BY` and `LIMIT` inside `EXISTS`, hence the scalar subquery.)
 */
export function frontierHasPageIn(state: 'queued' | 'dispatched', crawlId: string): string {
  return `((SELECT 1 FROM crawl_frontier WHERE crawl_id = ${crawlId} AND state = '${state}'
            ORDER BY ${PARTIAL_INDEX_ORDER[state]} DESC LIMIT 1) IS NOT NULL)`;
}
