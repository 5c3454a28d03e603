import { Counter, type Registry } from 'prom-client';

/** What `max_age` requests found and kept. */
export class PageCopyMetrics {
  /** By outcome: `hit`, `miss` (then fetched), `kept`, `too_large` (not kept), `failed` (the store could not be read or written). */
  readonly copies: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.copies = new Counter({
      name: 'trawl_page_copies_total',
      help: 'Kept page copies asked for with max_age and kept, by outcome: hit, miss, kept, too_large, failed',
      labelNames: ['outcome'],
      registers: [registry],
    });
  }
}
