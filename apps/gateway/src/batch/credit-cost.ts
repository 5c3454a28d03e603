/**
 * The `cost` of a number of credits (spec-batch-api §2 `stats.spend.cost`): credits × the price of
 * one credit, `FETCH_CREDIT_PRICE_USD` — the Fetch API's own price, since batch pricing equals it
 * (spec §1). Rounded to a millionth of a dollar so sums print cleanly. Kept in one place: should
 * runs come to store their cost, this is the one function to replace.
 */
export function costOfCredits(credits: number, pricePerCredit: number): number {
  return Math.round(credits * pricePerCredit * 1e6) / 1e6;
}
