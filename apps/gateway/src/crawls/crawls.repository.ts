import { Injectable } from '@nestjs/common';
import type { CacheStatus, ContentStatus, CrawlOutputFormat, CrawlStatus, CrawlStopReason, SitemapMode } from '@trawl/contracts';
import type { StartCrawlBody } from '@trawl/contracts/http';
import {
  type AssertTrue,
  type CamelCase,
  type CrawlContentsRow,
  type CrawlFrontierRow,
  type CrawlSettingColumn,
  type CrawlsColumn,
  type CrawlsRow,
  Database,
  frontierHasPageIn,
  type SameNames,
  selectColumns,
  Sql,
} from '@trawl/persistence';
import type { ListCursor } from './crawl-cursor';
import type { CrawlSettings } from './crawl-request.schema';
import type { UrlTrace } from './crawl-url-fate';

/** A crawl row, as the API needs it. */
export interface CrawlRecord {
  id: string;
  tenantId: string;
  status: CrawlStatus;
  stopReason: CrawlStopReason | null;
  errorCode: string | null;
  errorDetail: string | null;
  url: string;
  /** Registrable domain the crawl stays on. */
  scopeDomain: string;
  depth: number | null;
  maxItems: number;
  maxPages: number;
  includePatterns: string[];
  excludePatterns: string[];
  outputFormat: CrawlOutputFormat | null;
  sitemap: SitemapMode;
  respectRobots: boolean;
  maxAge: number | null;
  sitemapState: 'pending' | 'read' | 'failed' | null;
  sitemapUrls: number;
  robotsDisallowed: number;
  pagesFetched: number;
  pagesFailed: number;
  itemsFound: number;
  duplicatesRemoved: number;
  createdAt: Date;
  finishedAt: Date | null;
  /** `created_at` in microseconds since the epoch (exact), for list cursors. */
  createdAtMicros: string;
}

/** One result: a frontier row the coordinator numbered with an `item_seq`. */
export interface CrawlResultRecord {
  frontierId: string;
  url: string;
  seq: number;
  contentStatus: ContentStatus | null;
  /** Crawls with `max_age`: whether a kept copy served the page (null before its fetch, or without max_age). */
  cache: CacheStatus | null;
}

export interface DownloadRecord extends CrawlResultRecord {
  /** The kept page's HTML, when fetched and asked for. */
  html: string | null;
}

export interface NewCrawl {
  tenantId: string;
  settings: CrawlSettings;
  scopeDomain: string;
  traceParent: string | undefined;
}

/** The columns of `crawls` a `CrawlRecord` is made of. */
const CRAWL_RECORD_COLUMNS = [
  'id',
  'tenant_id',
  'status',
  'stop_reason',
  'error_code',
  'error_detail',
  'url',
  'scope_domain',
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
  'robots_disallowed',
  'pages_fetched',
  'pages_failed',
  'items_found',
  'duplicates_removed',
  'created_at',
  'finished_at',
] as const satisfies readonly CrawlsColumn[];

type CrawlRow = Pick<CrawlsRow, (typeof CRAWL_RECORD_COLUMNS)[number]> & { created_at_us: string };

/**
 * A crawl parameter is a field of the `POST /v1/crawls` body, a `CrawlSettings` field, a setting
 * column of `crawls` (`CRAWL_SETTING_COLUMNS`) and read back in a `CrawlRecord` (the API shows it):
 * a new one does not compile until it is all four. `insert` writes the settings.
 */
export type CrawlParametersAreSettingColumns = AssertTrue<SameNames<keyof StartCrawlBody, CrawlSettingColumn>>;
export type CrawlSettingsAreSettingColumns = AssertTrue<SameNames<keyof CrawlSettings, CamelCase<CrawlSettingColumn>>>;
export type CrawlRecordsShowEverySetting = AssertTrue<
  SameNames<CrawlSettingColumn, Extract<(typeof CRAWL_RECORD_COLUMNS)[number], CrawlSettingColumn>>
>;

const CRAWL_COLUMNS = `
  ${selectColumns(CRAWL_RECORD_COLUMNS, { alias: 'c' })},
  (extract(epoch FROM c.created_at) * 1000000)::bigint::text AS created_at_us`;

/** A numbered frontier row (`item_seq > n` leaves out the start URL's `NULL`). */
type ResultRow = Pick<CrawlFrontierRow, 'id' | 'url' | 'content_status' | 'page_cache'> & { item_seq: number };

/** SQL of crawls and their results. Every read of tenant data is scoped by `tenantId`. */
@Injectable()
export class CrawlsRepository {
  constructor(private readonly db: Database) {}

  async insert(sql: Sql, crawl: NewCrawl): Promise<CrawlRecord> {
    const s = crawl.settings;
    const rows = await sql.query<CrawlRow>(
      `INSERT INTO crawls AS c (tenant_id, status, url, scope_domain, depth, max_items, max_pages,
                                include_patterns, exclude_patterns, output_format, trace_parent,
                                sitemap, respect_robots, sitemap_state, max_age)
       VALUES ($1, 'running', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       RETURNING ${CRAWL_COLUMNS}`,
      [
        crawl.tenantId,
        s.url,
        crawl.scopeDomain,
        s.depth ?? null,
        s.maxItems,
        s.maxPages,
        s.includePatterns,
        s.excludePatterns,
        s.outputFormat ?? null,
        crawl.traceParent ?? null,
        s.sitemap,
        s.respectRobots,
        // A coordinator reads the sitemaps of a crawl that wants them (SitemapSeeder).
        s.sitemap === 'skip' ? null : 'pending',
        s.maxAge ?? null,
      ],
    );
    return toCrawl(single(rows));
  }

  /**
   * The start URL's frontier row: opened for its links (unless the crawl follows none, `sitemap:
   * only`), never returned as a result (no `item_seq`), its own HTML never kept.
   */
  async insertStartUrl(sql: Sql, crawlId: string, url: string, urlKey: Buffer, wantsLinks: boolean): Promise<void> {
    await sql.query(
      `INSERT INTO crawl_frontier (crawl_id, url_key, url, depth, item_seq, state, wants_links, wants_content, content_status)
       VALUES ($1, $2, $3, 0, NULL, 'queued', $4, false, NULL)`,
      [crawlId, urlKey, url, wantsLinks],
    );
  }

  /**
   * What a crawl holds under one URL key: its frontier row, and a record of why it skipped the URL.
   * The caller has checked that the crawl is the tenant's (rows are reached through it).
   */
  async urlTrace(tenantId: string, crawlId: string, urlKey: Buffer): Promise<UrlTrace> {
    const [frontier] = await this.db.query<NonNullable<UrlTrace['frontier']>>(
      `SELECT f.url, f.item_seq AS "itemSeq", f.state, f.page_outcome AS "pageOutcome", f.page_error AS "pageError"
       FROM crawl_frontier f JOIN crawls c ON c.id = f.crawl_id
       WHERE f.crawl_id = $1 AND c.tenant_id = $2 AND f.url_key = $3`,
      [crawlId, tenantId, urlKey],
    );
    if (frontier) return { frontier };
    const [skipped] = await this.db.query<NonNullable<UrlTrace['skipped']>>(
      `SELECT s.url, s.reason, s.found_on AS "foundOn"
       FROM crawl_skipped_urls s JOIN crawls c ON c.id = s.crawl_id
       WHERE s.crawl_id = $1 AND c.tenant_id = $2 AND s.url_key = $3`,
      [crawlId, tenantId, urlKey],
    );
    return skipped ? { skipped } : {};
  }

  async find(tenantId: string, crawlId: string): Promise<CrawlRecord | undefined> {
    const rows = await this.db.query<CrawlRow>(`SELECT ${CRAWL_COLUMNS} FROM crawls c WHERE c.id = $1 AND c.tenant_id = $2`, [
      crawlId,
      tenantId,
    ]);
    return rows[0] && toCrawl(rows[0]);
  }

  /**
   * The crawl and, from the same snapshot, whether it is stopped with pages still in flight inside
   * the post-stop window (their links may still join the results).
   */
  async findWithPagesInFlight(
    tenantId: string,
    crawlId: string,
    postStopWindowMinutes: number,
  ): Promise<{ crawl: CrawlRecord; pagesInFlight: boolean } | undefined> {
    const rows = await this.db.query<CrawlRow & { pages_in_flight: boolean }>(
      `SELECT ${CRAWL_COLUMNS},
              (c.status = 'stopped'
               AND now() < c.stopped_at + make_interval(mins => $3)
               AND ${frontierHasPageIn('dispatched', 'c.id')})
                AS pages_in_flight
         FROM crawls c
        WHERE c.id = $1 AND c.tenant_id = $2`,
      [crawlId, tenantId, postStopWindowMinutes],
    );
    const row = rows[0];
    return row && { crawl: toCrawl(row), pagesInFlight: row.pages_in_flight === true };
  }

  /** A tenant's crawls, newest first, after `cursor`; at most `limit` rows. */
  async listPage(tenantId: string, cursor: ListCursor | undefined, limit: number): Promise<CrawlRecord[]> {
    const rows = cursor
      ? await this.db.query<CrawlRow>(
          `SELECT ${CRAWL_COLUMNS} FROM crawls c
            WHERE c.tenant_id = $1
              AND (c.created_at, c.id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid)
            ORDER BY c.created_at DESC, c.id DESC
            LIMIT $4`,
          [tenantId, cursor.createdAtMicros, cursor.crawlId, limit],
        )
      : await this.db.query<CrawlRow>(
          `SELECT ${CRAWL_COLUMNS} FROM crawls c WHERE c.tenant_id = $1 ORDER BY c.created_at DESC, c.id DESC LIMIT $2`,
          [tenantId, limit],
        );
    return rows.map(toCrawl);
  }

  /** Results with `item_seq` above `afterSeq`, in order; at most `limit`. */
  async resultsPage(tenantId: string, crawlId: string, afterSeq: number, limit: number): Promise<CrawlResultRecord[]> {
    const rows = await this.db.query<ResultRow>(
      `SELECT f.id, f.url, f.item_seq, f.content_status, f.page_cache
         FROM crawl_frontier f JOIN crawls c ON c.id = f.crawl_id
        WHERE c.id = $1 AND c.tenant_id = $2 AND f.item_seq > $3
        ORDER BY f.item_seq
        LIMIT $4`,
      [crawlId, tenantId, afterSeq, limit],
    );
    return rows.map(toResult);
  }

  /** Like `resultsPage`, with the HTML of fetched pages when `withContent`. */
  async downloadPage(tenantId: string, crawlId: string, afterSeq: number, limit: number, withContent: boolean): Promise<DownloadRecord[]> {
    const rows = await this.db.query<ResultRow & { html: CrawlContentsRow['html'] | null }>(
      `SELECT f.id, f.url, f.item_seq, f.content_status, f.page_cache,
              CASE WHEN $5::boolean AND f.content_status = 'fetched' THEN cc.html END AS html
         FROM crawl_frontier f
         JOIN crawls c ON c.id = f.crawl_id
         LEFT JOIN crawl_contents cc ON $5::boolean AND cc.frontier_id = f.id
        WHERE c.id = $1 AND c.tenant_id = $2 AND f.item_seq > $3
        ORDER BY f.item_seq
        LIMIT $4`,
      [crawlId, tenantId, afterSeq, limit, withContent],
    );
    return rows.map((row) => ({ ...toResult(row), html: row.html }));
  }

  /** The HTML of a kept, fetched page of a crawl that asked for content; `undefined` otherwise. */
  async findContent(tenantId: string, crawlId: string, frontierId: string): Promise<string | undefined> {
    const rows = await this.db.query<Pick<CrawlContentsRow, 'html'>>(
      `SELECT cc.html
         FROM crawl_contents cc
         JOIN crawl_frontier f ON f.id = cc.frontier_id
         JOIN crawls c ON c.id = f.crawl_id
        WHERE c.id = $1 AND c.tenant_id = $2 AND f.id = $3
          AND c.output_format IS NOT NULL AND f.item_seq IS NOT NULL AND f.content_status = 'fetched'`,
      [crawlId, tenantId, frontierId],
    );
    return rows[0]?.html;
  }

  /**
   * Stops a running crawl; `undefined` when it is not running (or not the tenant's). Kept pages not
   * in flight will never be fetched (no new page after a stop): their content turns `failed`, so
   * `pending` only ever means "will still be fetched".
   */
  async stopRunning(tenantId: string, crawlId: string): Promise<CrawlRecord | undefined> {
    return this.db.transaction(async (sql) => {
      const rows = await sql.query<CrawlRow>(
        `WITH stopped AS (
           UPDATE crawls
              SET status = 'stopped', stop_reason = 'user', stopped_at = now(), finished_at = now()
            WHERE id = $1 AND tenant_id = $2 AND status = 'running'
            RETURNING *)
         SELECT ${CRAWL_COLUMNS} FROM stopped c`,
        [crawlId, tenantId],
      );
      const stopped = rows[0];
      if (!stopped) return undefined;
      // A statement of its own, after the crawl's row lock: its snapshot holds the pages a
      // coordinator queued while the stop waited for that lock. Later ones see the crawl stopped.
      await sql.query(
        `UPDATE crawl_frontier SET content_status = 'failed'
          WHERE crawl_id = $1 AND item_seq IS NOT NULL AND content_status = 'pending' AND state <> 'dispatched'`,
        [crawlId],
      );
      return toCrawl(stopped);
    });
  }
}

function single<T>(rows: T[]): T {
  const row = rows[0];
  if (!row) throw new Error('INSERT … RETURNING gave no row');
  return row;
}

function toCrawl(row: CrawlRow): CrawlRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    status: row.status,
    stopReason: row.stop_reason,
    errorCode: row.error_code,
    errorDetail: row.error_detail,
    url: row.url,
    scopeDomain: row.scope_domain,
    depth: row.depth,
    maxItems: row.max_items,
    maxPages: row.max_pages,
    includePatterns: row.include_patterns,
    excludePatterns: row.exclude_patterns,
    outputFormat: row.output_format,
    sitemap: row.sitemap,
    respectRobots: row.respect_robots,
    maxAge: row.max_age,
    sitemapState: row.sitemap_state,
    sitemapUrls: row.sitemap_urls,
    robotsDisallowed: row.robots_disallowed,
    pagesFetched: row.pages_fetched,
    pagesFailed: row.pages_failed,
    itemsFound: row.items_found,
    duplicatesRemoved: Number(row.duplicates_removed),
    createdAt: row.created_at,
    finishedAt: row.finished_at,
    createdAtMicros: row.created_at_us,
  };
}

function toResult(row: ResultRow): CrawlResultRecord {
  return { frontierId: row.id, url: row.url, seq: row.item_seq, contentStatus: row.content_status, cache: row.page_cache };
}
