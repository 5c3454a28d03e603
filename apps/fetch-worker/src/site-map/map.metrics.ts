import { Counter, Histogram, Registry } from 'prom-client';

/** What a map reads: the site's robots.txt, its sitemaps, its page. */
export type MapDocumentKind = 'robots' | 'sitemap' | 'page';
/** How reading one document ended. `missing`: a 4xx where none is required (no robots.txt, no `/sitemap.xml`). */
export type MapDocumentOutcome = 'read' | 'missing' | 'failed' | 'timed_out';

/** Prometheus metrics of the Map API on a worker. */
export class MapMetrics {
  private readonly maps: Histogram<'outcome'>;
  private readonly documents: Counter<'kind' | 'outcome'>;

  constructor(registry: Registry) {
    this.maps = new Histogram({
      name: 'trawl_worker_map_seconds',
      help: 'Time to map a site, by outcome (complete, partial, invalid_url, site_unreachable, internal_error)',
      labelNames: ['outcome'],
      buckets: [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120],
      registers: [registry],
    });
    this.documents = new Counter({
      name: 'trawl_worker_map_documents_total',
      help: 'Documents read for maps, by kind (robots, sitemap, page) and outcome (read, missing, failed, timed_out)',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    });
  }

  mapped(outcome: string, seconds: number): void {
    this.maps.observe({ outcome }, seconds);
  }

  document(kind: MapDocumentKind, outcome: MapDocumentOutcome): void {
    this.documents.inc({ kind, outcome });
  }
}
