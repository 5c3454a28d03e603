import { Injectable } from '@nestjs/common';
import type { CacheStatus, FrontierState } from '@trawl/contracts';
import type { Sql } from '@trawl/persistence';
import { LinkCandidate } from './link-intake';

export interface DispatchedRow {
  id: number;
  state: FrontierState;
  attempt: number;
  depth: number;
  itemSeq: number | null;
  wantsLinks: boolean;
  wantsContent: boolean;
}

export interface FrontierInsert {
  candidates: LinkCandidate[];
  /** Items the crawl may still keep (max_items − items_found). */
  room: number;
  firstSeq: number;
  /** Per candidate: is it opened for links / fetched for content now. */
  wantsLinks: boolean[];
  wantsContent: boolean;
  /** New rows wait in the queue (true) or are final at once (false: e.g. after a stop). */
  queue: boolean[];
}

/** Hand-written SQL of result intake: the hot path of a crawl. */
@Injectable()
export class PageResultRepository {
  async frontierRows(sql: Sql, crawlId: string, ids: number[]): Promise<DispatchedRow[]> {
    const rows = await sql.query<DispatchedRow & { id: string }>(
      `SELECT id, state, attempt, depth, item_seq AS "itemSeq", wants_links AS "wantsLinks", wants_content AS "wantsContent"
       FROM crawl_frontier WHERE crawl_id = $1 AND id = ANY($2::bigint[]) FOR UPDATE`,
      [crawlId, ids],
    );
    return rows.map((r) => ({ ...r, id: Number(r.id) }));
  }

  /**
   * Settles answered rows: `done` (or `queued` again, for a page that must now be opened too, or
   * `dropped`, for a page not fetched because its crawl stopped), with their content status.
   */
  async settleRows(
    sql: Sql,
    ids: number[],
    states: string[],
    contentStatus: (string | null)[],
    /** Per row, the page's outcome and failure code (said where its URL went), and whether a kept copy served it. */
    outcomes: { outcome: string; error: string | null; cache: CacheStatus | null }[],
  ): Promise<void> {
    await sql.query(
      `UPDATE crawl_frontier f SET state = u.state, lease_until = NULL,
         content_status = COALESCE(u.content_status, f.content_status),
         page_outcome = u.outcome, page_error = u.error, page_cache = u.cache
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS u(id, state, content_status, outcome, error, cache)
       WHERE f.id = u.id`,
      [ids, states, contentStatus, outcomes.map((o) => o.outcome), outcomes.map((o) => o.error), outcomes.map((o) => o.cache)],
    );
  }

  /**
   * Records URLs the crawl saw and did not keep for `reason` (at most `room` of them; a URL the
   * crawl has, or already recorded, is left alone), with the page each was found on (a frontier id,
   * or null for the crawl's sitemaps). Raises `crawls.skipped_recorded` by what it wrote.
   */
  async recordSkipped(
    sql: Sql,
    crawlId: string,
    reason: 'over_max_items' | 'robots_disallowed',
    urls: { key: Buffer; url: string; foundOn: number | null }[],
    room: number,
  ): Promise<number> {
    if (urls.length === 0 || room <= 0) return 0;
    const [row] = await sql.query<{ n: string }>(
      `WITH u AS (
         SELECT * FROM unnest($3::bytea[], $4::text[], $5::bigint[]) WITH ORDINALITY AS u(url_key, url, found_on, ord)
       ), ins AS (
         INSERT INTO crawl_skipped_urls (crawl_id, url_key, url, reason, found_on)
         SELECT $1, u.url_key, u.url, $2, COALESCE((SELECT f.url FROM crawl_frontier f WHERE f.id = u.found_on), 'sitemap')
         FROM u
         WHERE NOT EXISTS (SELECT 1 FROM crawl_frontier f WHERE f.crawl_id = $1 AND f.url_key = u.url_key)
         ORDER BY u.ord LIMIT $6
         ON CONFLICT DO NOTHING
         RETURNING 1
       ), counted AS (
         UPDATE crawls SET skipped_recorded = skipped_recorded + (SELECT count(*) FROM ins) WHERE id = $1
       )
       SELECT count(*) AS n FROM ins`,
      [crawlId, reason, urls.map((u) => u.key), urls.map((u) => u.url), urls.map((u) => u.foundOn), room],
    );
    return Number(row.n);
  }

  /**
   * A URL met again nearer the start than where it was first met takes the nearer depth while it
   * waits in the queue (so its own links get their true distance), and if it was kept at the depth
   * limit it is opened after all — fetched again if it was fetched only for its HTML (spec §8 rule 4).
   */
  async reopenNearer(sql: Sql, crawlId: string, candidates: LinkCandidate[], running: boolean): Promise<number> {
    const rows = await sql.query(
      `UPDATE crawl_frontier f
       SET depth = c.depth, wants_links = true,
           state = CASE WHEN f.state = 'done' AND $4 THEN 'queued' ELSE f.state END
       FROM unnest($2::bytea[], $3::int[]) AS c(url_key, depth)
       WHERE f.crawl_id = $1 AND f.url_key = c.url_key AND f.depth > c.depth AND f.item_seq IS NOT NULL
         AND (NOT f.wants_links OR f.state = 'queued')
       RETURNING 1`,
      [crawlId, candidates.map((c) => c.key), candidates.map((c) => c.depth), running],
    );
    return rows.length;
  }

  async insertContents(
    sql: Sql,
    crawlId: string,
    contents: { frontierId: number; html: string; contentType: string | null }[],
  ): Promise<void> {
    if (contents.length === 0) return;
    await sql.query(
      `INSERT INTO crawl_contents (frontier_id, crawl_id, html, content_type)
       SELECT u.id, $1, u.html, u.content_type FROM unnest($2::bigint[], $3::text[], $4::text[]) AS u(id, html, content_type)
       ON CONFLICT (frontier_id) DO UPDATE SET html = EXCLUDED.html, content_type = EXCLUDED.content_type, fetched_at = now()`,
      [crawlId, contents.map((c) => c.frontierId), contents.map((c) => c.html), contents.map((c) => c.contentType)],
    );
  }

  /**
   * Dedup and max_items in one statement, under the crawl's row lock: candidates whose key the
   * crawl already has are duplicates; of the rest, at most `room` are inserted, numbered from
   * `firstSeq` in the order met. Returns how many were new and how many were inserted.
   */
  async insertLinks(sql: Sql, crawlId: string, batch: FrontierInsert): Promise<{ fresh: number; inserted: number }> {
    const [row] = await sql.query<{ fresh: string; inserted: string }>(
      `WITH cand AS (
         SELECT * FROM unnest($2::bytea[], $3::text[], $4::int[], $5::bool[], $6::bool[])
           WITH ORDINALITY AS c(url_key, url, depth, wants_links, queue, ord)
       ), fresh AS (
         SELECT cand.* FROM cand
         WHERE NOT EXISTS (SELECT 1 FROM crawl_frontier f WHERE f.crawl_id = $1 AND f.url_key = cand.url_key)
       ), kept AS (
         SELECT * FROM fresh ORDER BY ord LIMIT $7
       ), ins AS (
         INSERT INTO crawl_frontier (crawl_id, url_key, url, depth, item_seq, state, wants_links, wants_content, content_status)
         SELECT $1, url_key, url, depth, $8 + row_number() OVER (ORDER BY ord) - 1,
                CASE WHEN queue THEN 'queued' ELSE 'done' END, wants_links, $9,
                CASE WHEN $9 THEN 'pending' END
         FROM kept ORDER BY ord
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM fresh) AS fresh, (SELECT count(*) FROM ins) AS inserted`,
      [
        crawlId,
        batch.candidates.map((c) => c.key),
        batch.candidates.map((c) => c.url),
        batch.candidates.map((c) => c.depth),
        batch.wantsLinks,
        batch.queue,
        batch.room,
        batch.firstSeq,
        batch.wantsContent,
      ],
    );
    return { fresh: Number(row.fresh), inserted: Number(row.inserted) };
  }

  async addCoverage(
    sql: Sql,
    crawlId: string,
    delta: {
      pagesFetched: number;
      pagesFailed: number;
      itemsFound: number;
      duplicates: number;
      /** URLs robots.txt kept the crawl from. */
      robotsDisallowed?: number;
      /** The longest `Crawl-delay` the results told, in ms (already capped): the crawl keeps the longest it met. */
      crawlDelayMs?: number;
    },
  ): Promise<void> {
    await sql.query(
      `UPDATE crawls SET pages_fetched = pages_fetched + $2, pages_failed = pages_failed + $3,
         items_found = items_found + $4, duplicates_removed = duplicates_removed + $5,
         robots_disallowed = robots_disallowed + $6,
         crawl_delay_ms = CASE WHEN $7::int IS NULL THEN crawl_delay_ms ELSE GREATEST(COALESCE(crawl_delay_ms, 0), $7::int) END
       WHERE id = $1`,
      [
        crawlId,
        delta.pagesFetched,
        delta.pagesFailed,
        delta.itemsFound,
        delta.duplicates,
        delta.robotsDisallowed ?? 0,
        delta.crawlDelayMs ?? null,
      ],
    );
  }
}
