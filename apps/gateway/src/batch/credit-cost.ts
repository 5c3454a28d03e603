/**
 * The cost of a number of credits at today's price: credits × `FETCH_CREDIT_PRICE_USD`, the Fetch
 * API's own price, since batch pricing equals it (spec §1). Rounded to a millionth of a dollar so
 * sums print cleanly. For estimates and ledger sums only: a run's `stats.spend.cost` is the cost
 * stored as it was billed (`job_runs.cost`), which a later price change does not rewrite.
 */
export function costOfCredits(credits: number, pricePerCredit: number): number {
  return toMillionths(credits * pricePerCredit);
}

/**
 * What ledger rows cost: the dollars each row was billed at, and today's price for the credits of
 * rows billed before the ledger kept prices. Rounded as {@link costOfCredits}.
 */
export function costOfLedger(rows: { costUsd: number; unpricedCredits: number }, pricePerCredit: number): number {
  return toMillionths(rows.costUsd + rows.unpricedCredits * pricePerCredit);
}

function toMillionths(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
