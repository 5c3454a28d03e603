import type { CrawlRecord, CrawlResultRecord, DownloadRecord } from './crawls.repository';

/** The crawl object of spec-crawl-api §2, without `results` and `next_cursor`. */
export interface CrawlResource {
  crawl_id: string;
  status: CrawlRecord['status'];
  stop_reason?: string;
  error?: { code: string; detail: string };
  url: string;
  depth?: number;
  max_items: number;
  max_pages: number;
  include_patterns: string[];
  exclude_patterns: string[];
  output_format?: string;
  discovery: ['links'];
  coverage: { pages_fetched: number; pages_failed: number; items_found: number };
  duplicates_removed: number;
  created_at: string;
  finished_at?: string;
}

export interface CrawlResultResource {
  url: string;
  content_status?: string;
  content_url?: string;
}

/** Fields that are "absent" in the spec are left out, never `null`. */
export function presentCrawl(crawl: CrawlRecord): CrawlResource {
  return {
    crawl_id: crawl.id,
    status: crawl.status,
    ...(crawl.stopReason && { stop_reason: crawl.stopReason }),
    ...(crawl.status === 'failed' && {
      error: { code: crawl.errorCode ?? 'internal_error', detail: crawl.errorDetail ?? 'The crawl failed.' },
    }),
    url: crawl.url,
    ...(crawl.depth !== null && { depth: crawl.depth }),
    max_items: crawl.maxItems,
    max_pages: crawl.maxPages,
    include_patterns: crawl.includePatterns,
    exclude_patterns: crawl.excludePatterns,
    ...(crawl.outputFormat && { output_format: crawl.outputFormat }),
    discovery: ['links'],
    coverage: { pages_fetched: crawl.pagesFetched, pages_failed: crawl.pagesFailed, items_found: crawl.itemsFound },
    duplicates_removed: crawl.duplicatesRemoved,
    created_at: crawl.createdAt.toISOString(),
    ...(crawl.finishedAt && { finished_at: crawl.finishedAt.toISOString() }),
  };
}

export function presentResult(crawl: Pick<CrawlRecord, 'id' | 'outputFormat'>, result: CrawlResultRecord): CrawlResultResource {
  if (!crawl.outputFormat) return { url: result.url };
  // A kept page the coordinator has not marked yet is still waiting for its fetch.
  const contentStatus = result.contentStatus ?? 'pending';
  return {
    url: result.url,
    content_status: contentStatus,
    ...(contentStatus === 'fetched' && { content_url: contentPath(crawl.id, result.frontierId) }),
  };
}

/** One NDJSON line of the download (without the newline). */
export function presentDownloadLine(crawl: Pick<CrawlRecord, 'outputFormat'>, record: DownloadRecord): string {
  if (!crawl.outputFormat) return JSON.stringify({ url: record.url });
  const contentStatus = record.contentStatus ?? 'pending';
  return JSON.stringify({
    url: record.url,
    content_status: contentStatus,
    ...(contentStatus === 'fetched' && record.html !== null && { content: record.html }),
  });
}

/** Answer of `POST /v1/crawls/{id}/stop`: the crawl's state after the stop (or its final state). */
export function presentStop(crawl: CrawlRecord) {
  return {
    crawl_id: crawl.id,
    status: crawl.status,
    ...(crawl.stopReason && { stop_reason: crawl.stopReason }),
    ...(crawl.finishedAt && { finished_at: crawl.finishedAt.toISOString() }),
    ...(crawl.status === 'failed' && {
      error: { code: crawl.errorCode ?? 'internal_error', detail: crawl.errorDetail ?? 'The crawl failed.' },
    }),
  };
}

export function crawlPath(crawlId: string): string {
  return `/v1/crawls/${crawlId}`;
}

export function contentPath(crawlId: string, frontierId: string): string {
  return `/v1/crawls/${crawlId}/contents/${frontierId}`;
}
