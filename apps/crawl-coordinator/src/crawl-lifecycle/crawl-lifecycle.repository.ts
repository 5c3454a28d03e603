import { Injectable } from '@nestjs/common';
import { frontierHasPageIn, type Sql } from '@trawl/persistence';
import { CRAWL_COLUMNS, CrawlRow } from './crawl.types';
import type { CrawlVerdict } from './crawl-completion';

export interface FrontierState {
  hasQueued: boolean;
  hasInFlight: boolean;
  hasPendingContent: boolean;
}

/** SQL for reading and ending crawls; callers hold the transaction. */
@Injectable()
export class CrawlLifecycleRepository {
  /** Crawls running now, every tenant's (a partial index on running crawls covers it). */
  async countRunning(sql: Sql): Promise<number> {
    const [row] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM crawls WHERE status = 'running'`);
    return row.n;
  }

  /** Locks the crawls (in id order, so two transactions never deadlock) and returns them. */
  async lockCrawls(sql: Sql, crawlIds: string[]): Promise<CrawlRow[]> {
    return sql.query<CrawlRow>(`SELECT ${CRAWL_COLUMNS} FROM crawls WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE`, [crawlIds]);
  }

  /**
   * @param withPendingContent whether to look for kept pages waiting for their HTML (a scan of the
   *   crawl's open pages; only a crawl at `max_items` needs it): false answers `hasPendingContent` false.
   */
  async frontierState(sql: Sql, crawlId: string, withPendingContent: boolean): Promise<FrontierState> {
    // CASE runs the subquery only when asked.
    const [row] = await sql.query<FrontierState>(
      `SELECT
         ${frontierHasPageIn('queued', '$1')} AS "hasQueued",
         ${frontierHasPageIn('dispatched', '$1')} AS "hasInFlight",
         CASE WHEN $2 THEN EXISTS (SELECT 1 FROM crawl_frontier WHERE crawl_id = $1 AND state IN ('queued', 'dispatched')
                                   AND wants_content AND content_status = 'pending')
              ELSE false END AS "hasPendingContent"`,
      [crawlId, withPendingContent],
    );
    return row;
  }

  /** Ends a running crawl (a crawl that ended already stays as it ended), in the caller's transaction. */
  async finish(sql: Sql, crawl: Pick<CrawlRow, 'id' | 'tenantId'>, verdict: Exclude<CrawlVerdict, { kind: 'continue' }>): Promise<void> {
    const [ended] = await sql.query<{ finished_at: Date }>(
      `UPDATE crawls SET status = $2, stop_reason = $3, error_code = $4, error_detail = $5, finished_at = now()
       WHERE id = $1 AND status = 'running' RETURNING finished_at`,
      [
        crawl.id,
        verdict.kind,
        verdict.kind === 'completed' ? verdict.stopReason : null,
        verdict.kind === 'failed' ? verdict.code : null,
        verdict.kind === 'failed' ? verdict.detail : null,
      ],
    );
    if (!ended) return;
    await this.settleUnfetchedContent(sql, crawl.id);
  }

  /**
   * Kept pages of an ended crawl that wait for their HTML and are not in flight will never be fetched:
   * their `content_status` turns `failed`, so `pending` means only "will still be fetched" and a client
   * waiting for `fetched` or `failed` settles. Pages in flight settle when they answer or are dropped.
   */
  async settleUnfetchedContent(sql: Sql, crawlId: string): Promise<void> {
    await sql.query(
      `UPDATE crawl_frontier SET content_status = 'failed'
       WHERE crawl_id = $1 AND item_seq IS NOT NULL AND content_status = 'pending' AND state <> 'dispatched'`,
      [crawlId],
    );
  }

  /** Running crawls, oldest first, for the reconciler's safety-net completion check. */
  async runningCrawlIds(sql: Sql, limit: number): Promise<string[]> {
    const rows = await sql.query<{ id: string }>(`SELECT id FROM crawls WHERE status = 'running' ORDER BY created_at LIMIT $1`, [limit]);
    return rows.map((r) => r.id);
  }
}
