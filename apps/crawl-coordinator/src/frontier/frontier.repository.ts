import { Injectable } from '@nestjs/common';
import { type CrawlsRow, frontierHasPageIn, type Sql, type TenantsRow } from '@trawl/persistence';

export interface ClaimedPage {
  frontierId: number;
  url: string;
  depth: number;
  attempt: number;
  /** When this claim's lease ends (epoch ms): with the attempt, what names the claim. */
  leaseUntilMs: number;
  wantsLinks: boolean;
  wantsContent: boolean;
}

export interface DispatchableCrawl {
  id: CrawlsRow['id'];
  tenantId: CrawlsRow['tenant_id'];
  scopeDomain: CrawlsRow['scope_domain'];
  traceParent: CrawlsRow['trace_parent'];
  budget: number;
  outOfCredits: boolean;
  /** The tenant's plan features: which tiers adaptive stealth may use for its pages. */
  planFeatures: TenantsRow['plan_features'];
  respectRobots: CrawlsRow['respect_robots'];
  /** Seconds within which a kept copy of a page serves instead of the site; null: every page fetched. */
  maxAge: CrawlsRow['max_age'];
  /** The robots.txt `Crawl-delay` the crawl keeps, in ms; null when none. */
  crawlDelayMs: CrawlsRow['crawl_delay_ms'];
  /** With a crawl delay: whether one of its pages is in flight, and ms until the next may go (≤ 0: now). */
  pageInFlight: boolean;
  msUntilNextDispatch: number;
}

/** SQL of the frontier: claims for dispatch, and leases that ran out. */
@Injectable()
export class FrontierRepository {
  /** Pages dispatched and not yet answered, across all crawls, counted up to `cap`. */
  async inFlight(sql: Sql, cap: number): Promise<number> {
    const [row] = await sql.query<{ n: string }>(
      `SELECT count(*) AS n FROM (SELECT 1 FROM crawl_frontier WHERE state = 'dispatched' LIMIT $1) x`,
      [cap],
    );
    return Number(row.n);
  }

  /** Running crawls that have queued pages and page budget left, in a fair (rotating) order. */
  async crawlsWithWork(sql: Sql, limit: number): Promise<string[]> {
    const rows = await sql.query<{ id: string }>(
      `SELECT c.id FROM crawls c
       WHERE c.status = 'running' AND c.pages_dispatched < c.max_pages
         AND ${frontierHasPageIn('queued', 'c.id')}
       ORDER BY random() LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.id);
  }

  /** Locks a running crawl for dispatch; null when another coordinator holds it or it ended. */
  async lockForDispatch(sql: Sql, crawlId: string): Promise<DispatchableCrawl | null> {
    const [row] = await sql.query<DispatchableCrawl>(
      `SELECT c.id, c.tenant_id AS "tenantId", c.scope_domain AS "scopeDomain", c.trace_parent AS "traceParent",
              (c.max_pages - c.pages_dispatched) AS budget, (t.credits_used >= t.credits_limit) AS "outOfCredits",
              t.plan_features AS "planFeatures", c.respect_robots AS "respectRobots", c.max_age AS "maxAge",
              c.crawl_delay_ms AS "crawlDelayMs",
              (c.crawl_delay_ms IS NOT NULL AND ${frontierHasPageIn('dispatched', 'c.id')}) AS "pageInFlight",
              COALESCE(extract(epoch FROM c.next_dispatch_at - now()) * 1000, 0)::float8 AS "msUntilNextDispatch"
       FROM crawls c JOIN tenants t ON t.id = c.tenant_id
       WHERE c.id = $1 AND c.status = 'running'
       FOR UPDATE OF c SKIP LOCKED`,
      [crawlId],
    );
    return row ?? null;
  }

  /**
   * Claims up to `limit` queued pages breadth-first, with a new attempt and a lease, never more than
   * the crawl's page budget left (`max_pages` − dispatched). The caller holds the crawl row lock.
   */
  async claim(sql: Sql, crawlId: string, limit: number, leaseMs: number): Promise<ClaimedPage[]> {
    const rows = await sql.query<Omit<ClaimedPage, 'frontierId' | 'leaseUntilMs'> & { frontierId: string; leaseUntilMs: string }>(
      `WITH picked AS (
         SELECT id FROM crawl_frontier WHERE crawl_id = $1 AND state = 'queued'
         ORDER BY id
         LIMIT LEAST($2, (SELECT GREATEST(0, max_pages - pages_dispatched) FROM crawls WHERE id = $1))
         FOR UPDATE SKIP LOCKED
       )
       UPDATE crawl_frontier f
       SET state = 'dispatched', attempt = f.attempt + 1, lease_until = now() + make_interval(secs => $3::double precision / 1000)
       FROM picked WHERE f.id = picked.id
       RETURNING f.id AS "frontierId", f.url, f.depth, f.attempt, (extract(epoch FROM f.lease_until) * 1000)::bigint::text AS "leaseUntilMs", f.wants_links AS "wantsLinks", f.wants_content AS "wantsContent"`,
      [crawlId, limit, leaseMs],
    );
    if (rows.length > 0) {
      await sql.query(`UPDATE crawls SET pages_dispatched = pages_dispatched + $2 WHERE id = $1`, [crawlId, rows.length]);
    }
    // bigint ids arrive as strings; they stay below 2^53, the contract's integer range.
    return rows
      .map((r) => ({ ...r, frontierId: Number(r.frontierId), leaseUntilMs: Number(r.leaseUntilMs) }))
      .sort((a, b) => a.frontierId - b.frontierId);
  }

  /** A crawl with a crawl delay dispatched a page: the next waits until the delay has passed. */
  async delayNextDispatch(sql: Sql, crawlId: string, delayMs: number): Promise<void> {
    await sql.query(`UPDATE crawls SET next_dispatch_at = now() + make_interval(secs => $2::double precision / 1000) WHERE id = $1`, [
      crawlId,
      delayMs,
    ]);
  }

  /** Crawls with leases that ran out (the page's message was lost or its worker died). */
  async crawlsWithExpiredLeases(sql: Sql, limit: number): Promise<string[]> {
    const rows = await sql.query<{ crawl_id: string }>(
      `SELECT DISTINCT f.crawl_id FROM crawl_frontier f JOIN crawls c ON c.id = f.crawl_id
       WHERE f.state = 'dispatched' AND f.lease_until < now() AND c.status = 'running' LIMIT $1`,
      [limit],
    );
    return rows.map((r) => r.crawl_id);
  }

  /**
   * For a running crawl (row locked by the caller): expired claims go back to the queue — their
   * dispatch slot is returned, since the new claim takes it again — unless they used every
   * attempt: then the page counts as fetched and failed.
   */
  async reclaimExpired(
    sql: Sql,
    crawlId: string,
    maxAttempts: number,
  ): Promise<{ requeued: number; abandoned: number; seedAbandoned: boolean }> {
    const rows = await sql.query<{ requeued: string; abandoned: string; seed_abandoned: boolean | null }>(
      `WITH expired AS (
         SELECT id, attempt FROM crawl_frontier
         WHERE crawl_id = $1 AND state = 'dispatched' AND lease_until < now() FOR UPDATE SKIP LOCKED
       ), upd AS (
         UPDATE crawl_frontier f
         SET state = CASE WHEN e.attempt >= $2 THEN 'done' ELSE 'queued' END, lease_until = NULL,
             content_status = CASE WHEN e.attempt >= $2 AND f.wants_content THEN 'failed' ELSE f.content_status END
         FROM expired e WHERE f.id = e.id
         RETURNING e.attempt >= $2 AS abandoned, f.item_seq IS NULL AS seed
       )
       SELECT count(*) FILTER (WHERE NOT abandoned) AS requeued, count(*) FILTER (WHERE abandoned) AS abandoned,
              bool_or(abandoned AND seed) AS seed_abandoned FROM upd`,
      [crawlId, maxAttempts],
    );
    const requeued = Number(rows[0].requeued);
    const abandoned = Number(rows[0].abandoned);
    if (requeued + abandoned > 0) {
      await sql.query(
        `UPDATE crawls SET pages_dispatched = pages_dispatched - $2, pages_fetched = pages_fetched + $3,
           pages_failed = pages_failed + $3 WHERE id = $1`,
        [crawlId, requeued, abandoned],
      );
    }
    return { requeued, abandoned, seedAbandoned: rows[0].seed_abandoned === true };
  }

  /**
   * Claims of an ended crawl will not be answered any more (or no longer count): drop them. A kept
   * page among them will never have its HTML, so its content is `failed` rather than `pending`.
   */
  async dropInFlight(sql: Sql, crawlId: string): Promise<number> {
    const rows = await sql.query(
      `UPDATE crawl_frontier SET state = 'dropped', lease_until = NULL,
         content_status = CASE WHEN content_status = 'pending' THEN 'failed' ELSE content_status END
       WHERE crawl_id = $1 AND state = 'dispatched' RETURNING 1`,
      [crawlId],
    );
    return rows.length;
  }

  /** Ended crawls whose in-flight pages may be dropped: finished (not stopped) with expired leases,
   * or stopped longer ago than the post-stop window. */
  async endedCrawlsWithInFlight(sql: Sql, stopWindowMs: number, limit: number): Promise<string[]> {
    const rows = await sql.query<{ id: string }>(
      `SELECT c.id FROM crawls c
       WHERE c.status <> 'running'
         AND EXISTS (SELECT 1 FROM crawl_frontier f WHERE f.crawl_id = c.id AND f.state = 'dispatched'
                     AND (c.status <> 'stopped' AND f.lease_until < now()
                          OR c.status = 'stopped' AND c.stopped_at + make_interval(secs => $1::double precision / 1000) < now()))
       LIMIT $2`,
      [stopWindowMs, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Crawls that ended (stopped, completed, failed) within the window and still have pages dispatched. */
  async endedCrawlsStillDispatched(sql: Sql, windowMs: number, limit: number): Promise<string[]> {
    const rows = await sql.query<{ id: string }>(
      `SELECT c.id FROM crawls c
       WHERE c.status <> 'running' AND c.finished_at + make_interval(secs => $1::double precision / 1000) > now()
         AND ${frontierHasPageIn('dispatched', 'c.id')}
       LIMIT $2`,
      [windowMs, limit],
    );
    return rows.map((r) => r.id);
  }
}
