import type { PlanProduct } from '@trawl/contracts';

/** `credit_ledger.product`: what one ledger row bought (a Fetch request, a crawl page, a batch task, a map). */
export const LEDGER_PRODUCTS = ['fetch', 'crawl_page', 'batch', 'map'] as const;
export type LedgerProduct = (typeof LEDGER_PRODUCTS)[number];

/**
 * The plan product each ledger row is billed under, so usage read from the ledger is shown in the
 * names plans and `AUTH012` use. A new ledger product does not compile until it has one.
 */
export const PLAN_PRODUCT_OF_LEDGER: Readonly<Record<LedgerProduct, PlanProduct>> = {
  fetch: 'fetch',
  crawl_page: 'crawl',
  batch: 'batch',
  // A map lists a site's pages for a crawl or a batch to fetch: the crawl product's discovery.
  map: 'crawl',
};

/** The plan product of a ledger row's `product`; undefined for a name this build does not know. */
export function planProductOfLedger(product: string): PlanProduct | undefined {
  return (LEDGER_PRODUCTS as readonly string[]).includes(product) ? PLAN_PRODUCT_OF_LEDGER[product as LedgerProduct] : undefined;
}
