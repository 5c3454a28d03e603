import type { Sql } from '@trawl/persistence';
import type { LedgerProduct } from './ledger-products';

export interface Charge {
  tenantId: string;
  credits: number;
  /** What was bought. */
  product: LedgerProduct;
  tier: string;
  /** Unique per billed unit of work (e.g. `crawl:<id>:<frontier id>:<attempt>`): a charge is recorded once. */
  ref: string;
  /** What the credits cost in US dollars at this price (kept with the row); absent where no price applies (crawl pages). */
  costUsd?: number;
}

/**
 * Records charges in the caller's transaction: one ledger row each, and the tenant's running total
 * raised by what was actually inserted, so re-applying the same result bills nothing more.
 */
export async function recordCharges(sql: Sql, charges: Charge[]): Promise<number> {
  const billable = charges.filter((c) => c.credits > 0);
  if (billable.length === 0) return 0;
  const rows = await sql.prepared<{ tenant_id: string; credits: string }>(
    'credit_ledger_record',
    `WITH ins AS (
       INSERT INTO credit_ledger (tenant_id, credits, product, tier, ref, cost_usd)
       SELECT * FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[], $5::text[], $6::numeric[])
       ON CONFLICT (tenant_id, ref) DO NOTHING
       RETURNING tenant_id, credits
     ), totals AS (
       SELECT tenant_id, sum(credits) AS credits FROM ins GROUP BY tenant_id
     )
     UPDATE tenants t SET credits_used = t.credits_used + totals.credits
     FROM totals WHERE t.id = totals.tenant_id
     RETURNING t.id AS tenant_id, totals.credits`,
    [
      billable.map((c) => c.tenantId),
      billable.map((c) => c.credits),
      billable.map((c) => c.product),
      billable.map((c) => c.tier),
      billable.map((c) => c.ref),
      billable.map((c) => (c.costUsd === undefined ? null : costString(c.costUsd))),
    ],
  );
  return rows.reduce((sum, r) => sum + Number(r.credits), 0);
}

/** Dollars as Postgres' numeric reads them: to a hundred-millionth, without float noise (0.1 + 0.2). */
function costString(usd: number): string {
  return usd.toFixed(8);
}
