/** A crawl row as the coordinator reads it (under its row lock). */
export interface CrawlRow {
  id: string;
  tenantId: string;
  status: 'running' | 'completed' | 'stopped' | 'failed';
  depth: number | null;
  maxItems: number;
  maxPages: number;
  includePatterns: string[];
  excludePatterns: string[];
  outputFormat: string | null;
  scopeDomain: string;
  pagesDispatched: number;
  itemsFound: number;
  stoppedAt: Date | null;
  traceParent: string | null;
}

export const CRAWL_COLUMNS = `id, tenant_id AS "tenantId", status, depth, max_items AS "maxItems",
  max_pages AS "maxPages", include_patterns AS "includePatterns", exclude_patterns AS "excludePatterns",
  output_format AS "outputFormat", scope_domain AS "scopeDomain", pages_dispatched AS "pagesDispatched",
  items_found AS "itemsFound", stopped_at AS "stoppedAt", trace_parent AS "traceParent"`;
