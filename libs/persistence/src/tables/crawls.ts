import type { CrawlOutputFormat, CrawlStatus, CrawlStopReason, SitemapMode } from '@trawl/contracts';
import { columnNames } from './columns';

/**
 * A `crawls` row as `pg` returns it (`bigint` as a string). The gateway writes it and answers the
 * Crawl API from it; the crawl coordinator locks it, counts its pages and ends it. Migrations:
 * 1763798400000-init, 1764000000180-crawl-sitemaps-robots.
 */
export interface CrawlsRow {
  id: string;
  tenant_id: string;
  status: CrawlStatus;
  stop_reason: CrawlStopReason | null;
  error_code: string | null;
  error_detail: string | null;
  url: string;
  scope_domain: string;
  depth: number | null;
  max_items: number;
  max_pages: number;
  include_patterns: string[];
  exclude_patterns: string[];
  /** No CHECK: the gateway writes only `CRAWL_OUTPUT_FORMATS`. */
  output_format: CrawlOutputFormat | null;
  /** W3C traceparent of the request that started the crawl. */
  trace_parent: string | null;
  /** Where the crawl finds URLs besides links: its sitemaps too (`include`), only them, or not (`skip`). */
  sitemap: SitemapMode;
  /** Links robots.txt disallows are skipped, and its `Crawl-delay` paces the crawl. */
  respect_robots: boolean;
  /** Pages may come from the tenant's kept copies fetched within this many seconds; null: every page fetched. */
  max_age: number | null;
  /** The sitemaps' read: `pending` until a coordinator has read them; null for `sitemap: skip`. */
  sitemap_state: 'pending' | 'read' | 'failed' | null;
  /** A coordinator reads the sitemaps until then; another may take them over after it. */
  sitemap_claimed_until: Date | null;
  /** Reads of the sitemaps started (claims taken); after a few the read counts as failed. */
  sitemap_attempts: number;
  /** URLs the sitemaps named, in scope (before patterns and limits). */
  sitemap_urls: number;
  /** URLs robots.txt kept the crawl from (links and sitemap URLs). */
  robots_disallowed: number;
  /** The robots.txt `Crawl-delay` the dispatch keeps, in ms (capped); null when none. */
  crawl_delay_ms: number | null;
  /** With a crawl delay: no page is dispatched before then. */
  next_dispatch_at: Date | null;
  /** Rows of `crawl_skipped_urls` this crawl wrote (bounded by `MAX_SKIPPED_RECORDED`). */
  skipped_recorded: number;
  pages_dispatched: number;
  pages_fetched: number;
  pages_failed: number;
  items_found: number;
  /** `bigint`. */
  duplicates_removed: string;
  created_at: Date;
  stopped_at: Date | null;
  finished_at: Date | null;
}

/** A column of `crawls`. */
export type CrawlsColumn = keyof CrawlsRow;

/** Every column of `crawls`. */
export const CRAWLS_COLUMNS = columnNames<CrawlsRow>({
  id: true,
  tenant_id: true,
  status: true,
  stop_reason: true,
  error_code: true,
  error_detail: true,
  url: true,
  scope_domain: true,
  depth: true,
  max_items: true,
  max_pages: true,
  include_patterns: true,
  exclude_patterns: true,
  output_format: true,
  trace_parent: true,
  sitemap: true,
  respect_robots: true,
  max_age: true,
  sitemap_state: true,
  sitemap_claimed_until: true,
  sitemap_attempts: true,
  sitemap_urls: true,
  robots_disallowed: true,
  crawl_delay_ms: true,
  next_dispatch_at: true,
  skipped_recorded: true,
  pages_dispatched: true,
  pages_fetched: true,
  pages_failed: true,
  items_found: true,
  duplicates_removed: true,
  created_at: true,
  stopped_at: true,
  finished_at: true,
});

/**
 * The columns a crawl's request sets (`POST /v1/crawls` body fields of the same names). The gateway
 * writes them; the coordinator reads every one but `url` as the crawl's rules. A new crawl parameter
 * (checked by adding one and running `tsc`) fails to compile, step by step, in
 * `apps/gateway/src/crawls/crawls.repository.ts` (body field, `CrawlSettings` field, this list and
 * `CrawlRecord`'s columns name the same settings), `apps/crawl-coordinator/src/crawl-lifecycle/crawl.types.ts`
 * (the coordinator reads it) and `apps/gateway/src/crawls/crawl-request.schema.ts` (`effectiveSettings`);
 * `tables.int-spec.ts` fails until a migration adds the column. Left to the author: the values of
 * `CrawlsRepository.insert`, the rule in the coordinator, and the page task if workers need it.
 */
export const CRAWL_SETTING_COLUMNS = [
  'url',
  'depth',
  'max_items',
  'max_pages',
  'include_patterns',
  'exclude_patterns',
  'output_format',
  'sitemap',
  'respect_robots',
  'max_age',
] as const satisfies readonly CrawlsColumn[];
export type CrawlSettingColumn = (typeof CRAWL_SETTING_COLUMNS)[number];
