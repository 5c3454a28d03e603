import { Injectable } from '@nestjs/common';
import type { Sql } from '@trawl/persistence';

/**
 * SQL of the retention sweeps; every statement deletes at most `limit` rows. Expiry is judged by the
 * database's clock, as the gateway judges it when a job names an input or an export is downloaded.
 * Cross-tenant by design: these are the operator's housekeeping, never a tenant's read.
 */
@Injectable()
export class RetentionRepository {
  /**
   * Staged rows of CSV inputs that expired unused. The input rows are locked (`SKIP LOCKED`), so a
   * job taking an input at this moment either marked it used first (skipped here) or finds it expired.
   */
  async deleteExpiredInputRows(sql: Sql, limit: number): Promise<number> {
    const rows = await sql.query<{ n: number }>(
      `WITH inputs AS (
         SELECT id FROM job_inputs
          WHERE expires_at <= now() AND state <> 'used' AND EXISTS (SELECT 1 FROM job_input_rows r WHERE r.input_id = job_inputs.id)
          LIMIT 100 FOR UPDATE SKIP LOCKED
       ), doomed AS (
         SELECT r.input_id, r.seq FROM job_input_rows r JOIN inputs i ON i.id = r.input_id LIMIT $1
       ), deleted AS (
         DELETE FROM job_input_rows r USING doomed d WHERE r.input_id = d.input_id AND r.seq = d.seq RETURNING 1
       )
       SELECT count(*)::int AS n FROM deleted`,
      [limit],
    );
    return rows[0]?.n ?? 0;
  }

  /** Unused CSV input slots expired for longer than `keptMs`, with no staged row left. */
  async deleteExpiredInputs(sql: Sql, keptMs: number, limit: number): Promise<number> {
    const rows = await sql.query<{ id: string }>(
      `DELETE FROM job_inputs WHERE id IN (
         SELECT id FROM job_inputs i
          WHERE i.expires_at <= now() - make_interval(secs => $1::double precision / 1000) AND i.state <> 'used'
            AND NOT EXISTS (SELECT 1 FROM job_input_rows r WHERE r.input_id = i.id)
          LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [keptMs, limit],
    );
    return rows.length;
  }

  /** Export records expired for longer than `keptMs` (the archive itself is built at download). */
  async deleteExpiredExports(sql: Sql, keptMs: number, limit: number): Promise<number> {
    const rows = await sql.query<{ id: string }>(
      `DELETE FROM job_exports WHERE id IN (
         SELECT id FROM job_exports WHERE expires_at <= now() - make_interval(secs => $1::double precision / 1000)
          LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING id`,
      [keptMs, limit],
    );
    return rows.length;
  }
}
