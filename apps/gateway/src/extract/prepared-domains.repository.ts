import { Injectable } from '@nestjs/common';
import type { ServedExtractRecipe } from '@trawl/fetch-params';
import { type ExtractDomainsRow, Database, EXTRACT_DOMAINS_COLUMNS, selectColumns, type Sql, type TenantsRow } from '@trawl/persistence';
import { extractPreparationV1 } from '@trawl/contracts';
import { writeToOutbox } from '@trawl/messaging';

/** The columns the API shows or decides on. */
export type PreparedDomainRecord = ExtractDomainsRow;

/** A tenant's allowance of new domains and the billing period it counts in. */
export interface DomainAllowance {
  perPeriod: number;
  periodStartedAt: Date;
  periodEndsAt: Date;
}

const COLUMNS = selectColumns(EXTRACT_DOMAINS_COLUMNS);

/**
 * SQL of `extract_domains` and of the asks counted against a tenant's allowance. Prepared domains
 * are shared by every tenant: only the asks carry a `tenant_id`.
 */
@Injectable()
export class PreparedDomainsRepository {
  constructor(private readonly db: Database) {}

  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.db.transaction(work);
  }

  /** Locks the tenant's row, so that two asks of one tenant count one after the other. */
  async lockAllowance(sql: Sql, tenantId: string): Promise<DomainAllowance | undefined> {
    const [row] = await sql.query<
      { per_period: TenantsRow['extract_domains_per_period'] } & Pick<TenantsRow, 'period_started_at' | 'period_ends_at'>
    >(`SELECT extract_domains_per_period AS per_period, period_started_at, period_ends_at FROM tenants WHERE id = $1 FOR UPDATE`, [
      tenantId,
    ]);
    return row && { perPeriod: row.per_period, periodStartedAt: row.period_started_at, periodEndsAt: row.period_ends_at };
  }

  async countAsks(sql: Sql, tenantId: string, since: Date): Promise<number> {
    const [row] = await sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM extract_domain_requests WHERE tenant_id = $1 AND requested_at >= $2`,
      [tenantId, since],
    );
    return row?.n ?? 0;
  }

  async lockDomain(sql: Sql, domain: string): Promise<PreparedDomainRecord | undefined> {
    const [row] = await sql.query<PreparedDomainRecord>(`SELECT ${COLUMNS} FROM extract_domains WHERE domain = $1 FOR UPDATE`, [domain]);
    return row;
  }

  /**
   * Queues a new attempt of the domain's preparation (a new domain, one that failed, or one an
   * operator prepares again) and the message that starts it, in the caller's transaction. Without
   * example URLs an earlier attempt's are kept. `requeueAfterMs`: if no preparer has
   * taken it by then, the scheduler's sweep sends the message again.
   */
  async queueAttempt(
    sql: Sql,
    ask: { domain: string; exampleUrls: string[]; requeueAfterMs: number; subject: string },
  ): Promise<PreparedDomainRecord> {
    const [row] = await sql.query<PreparedDomainRecord>(
      `INSERT INTO extract_domains AS d (domain, status, attempt, example_urls, lease_until)
       VALUES ($1, 'queued', 1, $2, now() + make_interval(secs => $3 / 1000.0))
       ON CONFLICT (domain) DO UPDATE SET
         status = 'queued', attempt = d.attempt + 1, deliveries = 0,
         example_urls = CASE WHEN cardinality(EXCLUDED.example_urls) > 0 THEN EXCLUDED.example_urls ELSE d.example_urls END,
         lease_until = EXCLUDED.lease_until, pages_fetched = 0, pages_analysed = 0, failure_reason = NULL,
         requested_at = now(), started_at = NULL, failed_at = NULL, updated_at = now()
       RETURNING ${COLUMNS}`,
      [ask.domain, ask.exampleUrls, ask.requeueAfterMs],
    );
    await writeToOutbox(sql, ask.subject, extractPreparationV1, { domain: row.domain, attempt: row.attempt });
    return row;
  }

  /** Adds example URLs to a preparation that has not started fetching yet (at most `max` in all). */
  async addExamples(sql: Sql, domain: string, exampleUrls: string[], max: number): Promise<PreparedDomainRecord> {
    const [row] = await sql.query<PreparedDomainRecord>(
      `UPDATE extract_domains SET example_urls = (
         SELECT coalesce(array_agg(u ORDER BY first), '{}') FROM (
           SELECT u, min(o) AS first FROM unnest(example_urls || $2::text[]) WITH ORDINALITY AS e (u, o) GROUP BY u
           ORDER BY first LIMIT $3
         ) kept), updated_at = now()
       WHERE domain = $1 RETURNING ${COLUMNS}`,
      [domain, exampleUrls, max],
    );
    return row;
  }

  async recordAsk(sql: Sql, tenantId: string, domain: string): Promise<void> {
    await sql.query(`INSERT INTO extract_domain_requests (tenant_id, domain) VALUES ($1, $2)`, [tenantId, domain]);
  }

  async find(domain: string): Promise<PreparedDomainRecord | undefined> {
    const [row] = await this.db.query<PreparedDomainRecord>(`SELECT ${COLUMNS} FROM extract_domains WHERE domain = $1`, [domain]);
    return row;
  }

  /** Served domains in name order after `after`. */
  async listServed(after: string | undefined, limit: number): Promise<PreparedDomainRecord[]> {
    return this.db.query<PreparedDomainRecord>(
      `SELECT ${COLUMNS} FROM extract_domains
        WHERE recipe_version IS NOT NULL AND ($1::text IS NULL OR domain > $1)
        ORDER BY domain LIMIT $2`,
      [after ?? null, limit],
    );
  }

  async servedRecipe(domain: string): Promise<ServedExtractRecipe | undefined> {
    const [row] = await this.db.prepared<{ recipe_version: number | null; needs_render: boolean }>(
      'extract_served_recipe',
      `SELECT recipe_version, needs_render FROM extract_domains WHERE domain = $1`,
      [domain],
    );
    if (!row || row.recipe_version === null) return undefined;
    return { domain, version: row.recipe_version, needsRender: row.needs_render };
  }
}
