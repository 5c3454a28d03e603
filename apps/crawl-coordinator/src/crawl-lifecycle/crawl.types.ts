import {
  type AssertTrue,
  type CamelCaseRow,
  type CrawlSettingColumn,
  type CrawlsColumn,
  type CrawlsRow,
  type SameNames,
  selectColumns,
} from '@trawl/persistence';

/** The columns of `crawls` the coordinator reads. */
const COORDINATOR_CRAWL_COLUMNS = [
  'id',
  'tenant_id',
  'status',
  'depth',
  'max_items',
  'max_pages',
  'include_patterns',
  'exclude_patterns',
  'output_format',
  'sitemap',
  'respect_robots',
  'max_age',
  'sitemap_state',
  'sitemap_urls',
  'skipped_recorded',
  'scope_domain',
  'pages_dispatched',
  'items_found',
  'stopped_at',
  'trace_parent',
] as const satisfies readonly CrawlsColumn[];

/**
 * The coordinator reads every setting of a crawl but its start URL (the gateway opens it): a new
 * crawl parameter does not compile until it is read here, and then applied where it rules.
 */
export type CoordinatorReadsEverySetting = AssertTrue<
  SameNames<Exclude<CrawlSettingColumn, 'url'>, Extract<(typeof COORDINATOR_CRAWL_COLUMNS)[number], CrawlSettingColumn>>
>;

/** A crawl row as the coordinator reads it (under its row lock), under camelCase aliases. */
export type CrawlRow = CamelCaseRow<Pick<CrawlsRow, (typeof COORDINATOR_CRAWL_COLUMNS)[number]>>;

/** `id, tenant_id AS "tenantId", status, …`: the SELECT list of a `CrawlRow`. */
export const CRAWL_COLUMNS = selectColumns(COORDINATOR_CRAWL_COLUMNS, { camelCase: true });
