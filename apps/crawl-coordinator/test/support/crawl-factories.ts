import { crawlPageResultV1, CrawlPageResultV1, PageOutcome } from '@trawl/contracts';
import { normalizeUrl } from '@trawl/egress';
import type { Sql } from '@trawl/persistence';
import { uniqueSuffix } from '@trawl/testing';
import { ClaimedPage } from '../../src/frontier/frontier.repository';
import { keyOf } from '../../src/page-results/link-intake';

/** Start URL of every test crawl; links in tests are on the same site. */
export const SITE = 'https://site.test';

export interface TenantOptions {
  /** Credits of the period (default 1 000 000). */
  creditsLimit?: number;
  creditsUsed?: number;
  /** The plan's features (default: the column's default, every tier allowed). */
  planFeatures?: string[];
}

/** A tenant row as the admin API would create it. Returns its id. */
export async function createTenant(sql: Sql, options: TenantOptions = {}): Promise<string> {
  const [row] = await sql.query<{ id: string }>(
    `INSERT INTO tenants (name, credits_limit, credits_used, concurrency, max_active_jobs, period_ends_at)
     VALUES ($1, $2, $3, 5, 3, now() + interval '30 days') RETURNING id`,
    [`tenant-${uniqueSuffix()}`, options.creditsLimit ?? 1_000_000, options.creditsUsed ?? 0],
  );
  // Set only when asked: otherwise the column's own default, as for a tenant the admin API creates.
  if (options.planFeatures) await sql.query(`UPDATE tenants SET plan_features = $2 WHERE id = $1`, [row.id, options.planFeatures]);
  return row.id;
}

export interface CrawlOptions {
  /** Start URL (default `https://site.test/`). */
  url?: string;
  depth?: number | null;
  maxItems?: number;
  maxPages?: number;
  includePatterns?: string[];
  excludePatterns?: string[];
  outputFormat?: string | null;
}

export interface TestCrawl {
  id: string;
  tenantId: string;
  /** Frontier id of the start URL. */
  seedId: number;
}

/**
 * A running crawl with its start URL queued, written as `POST /v1/crawls` writes them (the start URL
 * is opened for links, never a result, its HTML never kept).
 */
export async function createCrawl(sql: Sql, tenantId: string, options: CrawlOptions = {}): Promise<TestCrawl> {
  const url = normalizeUrl(options.url ?? `${SITE}/`);
  if (!url) throw new Error(`not a crawlable URL: ${options.url}`);
  const [crawl] = await sql.query<{ id: string }>(
    `INSERT INTO crawls (tenant_id, status, url, scope_domain, depth, max_items, max_pages, include_patterns,
                         exclude_patterns, output_format)
     VALUES ($1, 'running', $2, 'site.test', $3, $4, $5, $6, $7, $8) RETURNING id`,
    [
      tenantId,
      url,
      options.depth ?? null,
      options.maxItems ?? 100,
      options.maxPages ?? 100,
      options.includePatterns ?? [],
      options.excludePatterns ?? [],
      options.outputFormat ?? null,
    ],
  );
  const [seed] = await sql.query<{ id: number }>(
    `INSERT INTO crawl_frontier (crawl_id, url_key, url, depth, item_seq, state, wants_links, wants_content, content_status)
     VALUES ($1, $2, $3, 0, NULL, 'queued', true, false, NULL) RETURNING id::int AS id`,
    [crawl.id, keyOf(url), url],
  );
  return { id: crawl.id, tenantId, seedId: seed.id };
}

/**
 * Ends a crawl by the user's stop, `agoMs` ago, as the gateway's stop does: kept pages not in flight
 * will never be fetched, so their content turns `failed`.
 */
export async function stopCrawl(sql: Sql, crawlId: string, agoMs = 0): Promise<void> {
  await sql.query(
    `UPDATE crawls SET status = 'stopped', stop_reason = 'user',
       stopped_at = now() - make_interval(secs => $2::double precision / 1000), finished_at = now()
     WHERE id = $1`,
    [crawlId, agoMs],
  );
  await sql.query(
    `UPDATE crawl_frontier SET content_status = 'failed'
     WHERE crawl_id = $1 AND item_seq IS NOT NULL AND content_status = 'pending' AND state <> 'dispatched'`,
    [crawlId],
  );
}

export interface ResultOptions {
  outcome?: PageOutcome;
  links?: string[];
  duplicateLinks?: number;
  credits?: number;
  tier?: string;
  /** Overrides of the message itself, for answers no current worker would send. */
  override?: Partial<CrawlPageResultV1>;
}

/**
 * The page result a fetch worker sends for a claimed page: billed 1 credit when fetched or 404/410,
 * links only when the task asked for them and the page loaded, HTML only when the task wanted it.
 */
export function pageResult(crawlId: string, page: Omit<ClaimedPage, 'leaseUntilMs'>, options: ResultOptions = {}): CrawlPageResultV1 {
  const outcome = options.outcome ?? 'fetched';
  const fetched = outcome === 'fetched';
  const opened = fetched && page.wantsLinks;
  return crawlPageResultV1.parse({
    v: 1,
    crawl_id: crawlId,
    frontier_id: page.frontierId,
    attempt: page.attempt,
    outcome,
    status_code: outcome === 'failed_billed' ? 404 : outcome === 'failed' ? 503 : fetched ? 200 : undefined,
    credits: options.credits ?? (fetched || outcome === 'failed_billed' ? 1 : 0),
    tier: options.tier ?? 'basic',
    opened,
    wanted_links: page.wantsLinks,
    links: opened ? (options.links ?? []).map((l) => (l.startsWith('http') ? l : `${SITE}${l}`)) : [],
    duplicate_links: opened ? (options.duplicateLinks ?? 0) : 0,
    content: fetched && page.wantsContent ? `<html><body>${page.url}</body></html>` : undefined,
    content_type: fetched && page.wantsContent ? 'text/html; charset=utf-8' : undefined,
    ...options.override,
  });
}

export interface CrawlView {
  status: string;
  stopReason: string | null;
  errorCode: string | null;
  errorDetail: string | null;
  pagesDispatched: number;
  pagesFetched: number;
  pagesFailed: number;
  itemsFound: number;
  duplicatesRemoved: number;
  finished: boolean;
}

/** The crawl as `GET /v1/crawls/{id}` would show it (status, coverage), plus the dispatch count. */
export async function readCrawl(sql: Sql, crawlId: string): Promise<CrawlView> {
  const [row] = await sql.query<CrawlView>(
    `SELECT status, stop_reason AS "stopReason", error_code AS "errorCode", error_detail AS "errorDetail", pages_dispatched AS "pagesDispatched",
            pages_fetched AS "pagesFetched", pages_failed AS "pagesFailed", items_found AS "itemsFound",
            duplicates_removed::int AS "duplicatesRemoved", finished_at IS NOT NULL AS finished
     FROM crawls WHERE id = $1`,
    [crawlId],
  );
  return row;
}

export interface FrontierView {
  id: number;
  url: string;
  depth: number;
  itemSeq: number | null;
  state: string;
  wantsLinks: boolean;
  wantsContent: boolean;
  contentStatus: string | null;
  attempt: number;
}

/** Every URL the crawl met, in the order met. */
export async function readFrontier(sql: Sql, crawlId: string): Promise<FrontierView[]> {
  return sql.query<FrontierView>(
    `SELECT id::int AS id, url, depth, item_seq AS "itemSeq", state, wants_links AS "wantsLinks",
            wants_content AS "wantsContent", content_status AS "contentStatus", attempt
     FROM crawl_frontier WHERE crawl_id = $1 ORDER BY id`,
    [crawlId],
  );
}

/** One frontier row by URL path (`/a`) or full URL. */
export async function frontierRow(sql: Sql, crawlId: string, url: string): Promise<FrontierView> {
  const full = url.startsWith('http') ? url : `${SITE}${url}`;
  const row = (await readFrontier(sql, crawlId)).find((r) => r.url === full);
  if (!row) throw new Error(`${full} is not in the frontier of crawl ${crawlId}`);
  return row;
}

/** The results a reader of the crawl gets, in result order. */
export async function readItems(sql: Sql, crawlId: string): Promise<{ url: string; itemSeq: number }[]> {
  return sql.query(`SELECT url, item_seq AS "itemSeq" FROM crawl_frontier WHERE crawl_id = $1 AND item_seq IS NOT NULL ORDER BY item_seq`, [
    crawlId,
  ]);
}

export interface Billing {
  creditsUsed: number;
  ledger: { ref: string; credits: number; product: string; tier: string }[];
}

export async function readBilling(sql: Sql, tenantId: string): Promise<Billing> {
  const [tenant] = await sql.query<{ used: string }>(`SELECT credits_used AS used FROM tenants WHERE id = $1`, [tenantId]);
  const ledger = await sql.query<Billing['ledger'][number]>(
    `SELECT ref, credits, product, tier FROM credit_ledger WHERE tenant_id = $1 ORDER BY id`,
    [tenantId],
  );
  return { creditsUsed: Number(tenant.used), ledger };
}
