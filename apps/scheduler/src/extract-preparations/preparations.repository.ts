import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PREPARED_DOMAIN_STATUSES, type PreparedDomainStatus } from '@trawl/contracts';
import { Database, type PreparedPageType, type Sql } from '@trawl/persistence';
import { extractPreparationV1 } from '@trawl/contracts';
import { writeToOutbox } from '@trawl/messaging';

/** A preparation this replica holds. */
export interface ClaimedPreparation {
  domain: string;
  attempt: number;
  /** This claim's token: every write of the preparation is guarded by it. */
  holder: string;
  exampleUrls: string[];
  /** Deliveries of this attempt so far, this one included. */
  deliveries: number;
  startedAt: Date;
}

/** A page the attempt stored: fetched (with its HTML) or failed. */
export interface StoredPage {
  url: string;
  finalUrl: string | null;
  html: string | null;
  errorCode: string | null;
}

/** A preparation whose lease ran out: its preparer died, or its message was lost. */
export interface OverduePreparation {
  domain: string;
  attempt: number;
  deliveries: number;
  requestedAt: Date;
}

/**
 * SQL of a domain's preparation (`extract_domains`, `extract_preparation_pages`, `extract_recipes`).
 * Every write is guarded by the attempt: a preparer that lost its lease to another writes nothing.
 */
@Injectable()
export class PreparationsRepository {
  constructor(private readonly db: Database) {}

  /**
   * Takes the attempt if it is queued (new, or sent again by the sweep), or preparing with its
   * lease run out. Undefined when the message is stale (another attempt, settled) or another
   * preparer holds it.
   */
  async claim(domain: string, attempt: number, leaseMs: number): Promise<ClaimedPreparation | undefined> {
    const holder = randomUUID();
    const [row] = await this.db.query<{ example_urls: string[]; deliveries: number; started_at: Date }>(
      `UPDATE extract_domains
          SET status = 'preparing', holder = $4, deliveries = deliveries + 1, started_at = coalesce(started_at, now()),
              lease_until = now() + make_interval(secs => $3 / 1000.0), updated_at = now()
        WHERE domain = $1 AND attempt = $2
          AND (status = 'queued' OR (status = 'preparing' AND (lease_until IS NULL OR lease_until < now())))
        RETURNING example_urls, deliveries, started_at`,
      [domain, attempt, leaseMs, holder],
    );
    return row && { domain, attempt, holder, exampleUrls: row.example_urls, deliveries: row.deliveries, startedAt: row.started_at };
  }

  async storedPages(domain: string, attempt: number): Promise<StoredPage[]> {
    const rows = await this.db.query<{ url: string; final_url: string | null; html_gzip: Buffer | null; error_code: string | null }>(
      `SELECT url, final_url, html_gzip, error_code FROM extract_preparation_pages WHERE domain = $1 AND attempt = $2 ORDER BY fetched_at, url`,
      [domain, attempt],
    );
    return rows.map((r) => ({
      url: r.url,
      finalUrl: r.final_url,
      html: r.html_gzip ? gunzipSync(r.html_gzip).toString('utf8') : null,
      errorCode: r.error_code,
    }));
  }

  /** Stores a page, counts it and renews the lease; false (nothing written) when the attempt is no longer this claim's. */
  async storePage(claim: ClaimedPreparation, page: StoredPage, leaseMs: number): Promise<boolean> {
    const { domain, attempt } = claim;
    return this.db.transaction(async (sql) => {
      const [held] = await sql.query(
        `UPDATE extract_domains
            SET pages_fetched = pages_fetched + CASE WHEN $3 THEN 1 ELSE 0 END,
                lease_until = now() + make_interval(secs => $4 / 1000.0), updated_at = now()
          WHERE domain = $1 AND attempt = $2 AND status = 'preparing' AND holder = $5 RETURNING 1`,
        [domain, attempt, page.html !== null, leaseMs, claim.holder],
      );
      if (!held) return false;
      await sql.query(
        `INSERT INTO extract_preparation_pages (domain, attempt, url, state, final_url, html_gzip, error_code)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [
          domain,
          attempt,
          page.url,
          page.html !== null ? 'fetched' : 'failed',
          page.finalUrl,
          page.html !== null ? gzipSync(page.html) : null,
          page.errorCode,
        ],
      );
      return true;
    });
  }

  /** Says how many pages are being learned from, and renews the lease for the learning; false when the attempt is no longer this claim's. */
  async markAnalysing(claim: ClaimedPreparation, pages: number, leaseMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE extract_domains SET pages_analysed = $3, lease_until = now() + make_interval(secs => $4 / 1000.0), updated_at = now()
        WHERE domain = $1 AND attempt = $2 AND status = 'preparing' AND holder = $5 RETURNING 1`,
      [claim.domain, claim.attempt, pages, leaseMs, claim.holder],
    );
    return rows.length > 0;
  }

  /** The recipe the domain serves now, if any (to keep its field names). */
  async servedRecipe(domain: string): Promise<{ version: number; recipe: unknown } | undefined> {
    const [row] = await this.db.query<{ version: number; recipe: unknown }>(
      `SELECT r.version, r.recipe FROM extract_domains d JOIN extract_recipes r ON r.domain = d.domain AND r.version = d.recipe_version
        WHERE d.domain = $1`,
      [domain],
    );
    return row;
  }

  async nextVersion(domain: string): Promise<number> {
    const [row] = await this.db.query<{ v: number }>(`SELECT coalesce(max(version), 0) + 1 AS v FROM extract_recipes WHERE domain = $1`, [
      domain,
    ]);
    return row.v;
  }

  /**
   * Serves the new recipe: stores it, moves the domain to `ready` and drops the attempt's pages,
   * in one transaction. False when the attempt is no longer this preparer's (nothing written).
   */
  async serve(
    claim: ClaimedPreparation,
    served: { version: number; recipe: unknown; pageTypes: PreparedPageType[]; needsRender: boolean; pagesAnalysed: number },
  ): Promise<boolean> {
    const { domain, attempt } = claim;
    return this.db.transaction(async (sql) => {
      const [held] = await sql.query(
        `UPDATE extract_domains
            SET status = 'ready', recipe_version = $3, page_types = $4, needs_render = $5, pages_analysed = $6,
                lease_until = NULL, holder = NULL, ready_at = now(), failure_reason = NULL, updated_at = now()
          WHERE domain = $1 AND attempt = $2 AND status = 'preparing' AND holder = $7 RETURNING 1`,
        [domain, attempt, served.version, JSON.stringify(served.pageTypes), served.needsRender, served.pagesAnalysed, claim.holder],
      );
      if (!held) return false;
      await sql.query(
        `INSERT INTO extract_recipes (domain, version, recipe) VALUES ($1, $2, $3)
         ON CONFLICT (domain, version) DO UPDATE SET recipe = EXCLUDED.recipe`,
        [domain, served.version, JSON.stringify(served.recipe)],
      );
      await dropPages(sql, domain);
      return true;
    });
  }

  /**
   * Ends the attempt. A domain that was served before keeps its recipe and goes back to `ready`
   * (the reason stays on the record); one never served is `failed`. `holder`: only if this claim
   * still holds it (a preparer's own failure); without, whoever holds it (the sweep's).
   */
  async fail(domain: string, attempt: number, reason: string, holder?: string): Promise<boolean> {
    return this.db.transaction(async (sql) => {
      const [held] = await sql.query(
        `UPDATE extract_domains
            SET status = CASE WHEN recipe_version IS NULL THEN 'failed' ELSE 'ready' END,
                failure_reason = $3, failed_at = now(), lease_until = NULL, holder = NULL, updated_at = now()
          WHERE domain = $1 AND attempt = $2 AND status IN ('queued', 'preparing') AND ($4::text IS NULL OR holder = $4) RETURNING 1`,
        [domain, attempt, reason, holder ?? null],
      );
      if (held) await dropPages(sql, domain);
      return held !== undefined;
    });
  }

  /** Domains by status, for `trawl_extract_domains`. */
  async countByStatus(): Promise<Record<PreparedDomainStatus, number>> {
    const rows = await this.db.query<{ status: PreparedDomainStatus; n: number }>(
      `SELECT status, count(*)::int AS n FROM extract_domains GROUP BY status`,
    );
    const counts = Object.fromEntries(PREPARED_DOMAIN_STATUSES.map((status) => [status, 0])) as Record<PreparedDomainStatus, number>;
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  /** `(domain, version)` of every served recipe. */
  async servedVersions(): Promise<{ domain: string; version: number }[]> {
    return this.db.query<{ domain: string; version: number }>(
      `SELECT domain, recipe_version AS version FROM extract_domains WHERE recipe_version IS NOT NULL`,
    );
  }

  async recipe(domain: string, version: number): Promise<unknown> {
    const [row] = await this.db.query<{ recipe: unknown }>(`SELECT recipe FROM extract_recipes WHERE domain = $1 AND version = $2`, [
      domain,
      version,
    ]);
    return row?.recipe;
  }

  /** Queued or preparing attempts whose lease ran out `graceMs` ago or more. */
  async overdue(graceMs: number, limit: number): Promise<OverduePreparation[]> {
    const rows = await this.db.query<{ domain: string; attempt: number; deliveries: number; requested_at: Date }>(
      `SELECT domain, attempt, deliveries, requested_at FROM extract_domains
        WHERE status IN ('queued', 'preparing') AND lease_until < now() - make_interval(secs => $1 / 1000.0)
        ORDER BY lease_until LIMIT $2`,
      [graceMs, limit],
    );
    return rows.map((r) => ({ domain: r.domain, attempt: r.attempt, deliveries: r.deliveries, requestedAt: r.requested_at }));
  }

  /**
   * Queues the attempt again with its message (through the outbox): its preparer is gone, so the
   * attempt is free for the next one to claim (the pages stored stay). A preparer gets `leaseMs`
   * to take it before the sweep sends it again.
   */
  async resend(domain: string, attempt: number, subject: string, leaseMs: number): Promise<void> {
    await this.db.transaction(async (sql) => {
      const [held] = await sql.query(
        `UPDATE extract_domains SET status = 'queued', holder = NULL, lease_until = now() + make_interval(secs => $3 / 1000.0), updated_at = now()
          WHERE domain = $1 AND attempt = $2 AND status IN ('queued', 'preparing') RETURNING 1`,
        [domain, attempt, leaseMs],
      );
      if (held) await writeToOutbox(sql, subject, extractPreparationV1, { domain, attempt });
    });
  }
}

function dropPages(sql: Sql, domain: string): Promise<unknown> {
  return sql.query(`DELETE FROM extract_preparation_pages WHERE domain = $1`, [domain]);
}
