import { CRAWL_OUTPUT_FORMATS, type CrawlOutputFormat } from '@trawl/contracts';
import {
  CRAWL_FAILURE_CODES,
  type CrawlDownloadLine,
  type CrawlFailureCode,
  type CrawlResource,
  type CrawlResultResource,
  type StopCrawlResource,
} from '@trawl/contracts/http';
import type { CrawlRecord, CrawlResultRecord, DownloadRecord } from './crawls.repository';

// The answers' shapes are the zod schemas of @trawl/contracts, which also write the OpenAPI document:
// a field added here and not there (or the reverse) fails to compile.
export type { CrawlResource, CrawlResultResource } from '@trawl/contracts/http';

/** Fields that are "absent" in the spec are left out, never `null`. */
export function presentCrawl(crawl: CrawlRecord): CrawlResource {
  const outputFormat = outputFormatOf(crawl);
  return {
    crawl_id: crawl.id,
    status: crawl.status,
    ...(crawl.stopReason && { stop_reason: crawl.stopReason }),
    ...(crawl.status === 'failed' && { error: failureOf(crawl) }),
    url: crawl.url,
    ...(crawl.depth !== null && { depth: crawl.depth }),
    max_items: crawl.maxItems,
    max_pages: crawl.maxPages,
    include_patterns: crawl.includePatterns,
    exclude_patterns: crawl.excludePatterns,
    ...(outputFormat && { output_format: outputFormat }),
    sitemap: crawl.sitemap,
    respect_robots: crawl.respectRobots,
    ...(crawl.maxAge !== null && { max_age: crawl.maxAge }),
    discovery: crawl.sitemap === 'only' ? ['sitemap'] : crawl.sitemap === 'include' ? ['links', 'sitemap'] : ['links'],
    ...(crawl.sitemapState !== null && { sitemap_status: crawl.sitemapState }),
    sitemap_urls: crawl.sitemapUrls,
    robots_disallowed: crawl.robotsDisallowed,
    coverage: { pages_fetched: crawl.pagesFetched, pages_failed: crawl.pagesFailed, items_found: crawl.itemsFound },
    duplicates_removed: crawl.duplicatesRemoved,
    created_at: crawl.createdAt.toISOString(),
    ...(crawl.finishedAt && { finished_at: crawl.finishedAt.toISOString() }),
  };
}

export function presentResult(crawl: Pick<CrawlRecord, 'id' | 'outputFormat'>, result: CrawlResultRecord): CrawlResultResource {
  const cache = result.cache !== null ? { cache: result.cache } : {};
  if (!crawl.outputFormat) return { url: result.url, ...cache };
  // A kept page the coordinator has not marked yet is still waiting for its fetch.
  const contentStatus = result.contentStatus ?? 'pending';
  return {
    url: result.url,
    content_status: contentStatus,
    ...(contentStatus === 'fetched' && { content_url: contentPath(crawl.id, result.frontierId) }),
    ...cache,
  };
}

/** One NDJSON line of the download (without the newline). */
export function presentDownloadLine(crawl: Pick<CrawlRecord, 'outputFormat'>, record: DownloadRecord): string {
  const cache = record.cache !== null ? { cache: record.cache } : {};
  if (!crawl.outputFormat) return JSON.stringify({ url: record.url, ...cache } satisfies CrawlDownloadLine);
  const contentStatus = record.contentStatus ?? 'pending';
  return JSON.stringify({
    url: record.url,
    content_status: contentStatus,
    ...(contentStatus === 'fetched' && record.html !== null && { content: record.html }),
    ...cache,
  } satisfies CrawlDownloadLine);
}

/** Answer of `POST /v1/crawls/{id}/stop`: the crawl's state after the stop (or its final state). */
export function presentStop(crawl: CrawlRecord): StopCrawlResource {
  return {
    crawl_id: crawl.id,
    status: crawl.status,
    ...(crawl.stopReason && { stop_reason: crawl.stopReason }),
    ...(crawl.finishedAt && { finished_at: crawl.finishedAt.toISOString() }),
    ...(crawl.status === 'failed' && { error: failureOf(crawl) }),
  };
}

export function crawlPath(crawlId: string): string {
  return `/v1/crawls/${crawlId}`;
}

function contentPath(crawlId: string, frontierId: string): string {
  return `/v1/crawls/${crawlId}/contents/${frontierId}`;
}

/** A failed crawl's `error`; a code the spec does not list reads as `internal_error`. */
function failureOf(crawl: Pick<CrawlRecord, 'errorCode' | 'errorDetail'>): { code: CrawlFailureCode; detail: string } {
  const known = (CRAWL_FAILURE_CODES as readonly string[]).includes(crawl.errorCode ?? '');
  return { code: known ? (crawl.errorCode as CrawlFailureCode) : 'internal_error', detail: crawl.errorDetail ?? 'The crawl failed.' };
}

function outputFormatOf(crawl: Pick<CrawlRecord, 'outputFormat'>): CrawlOutputFormat | undefined {
  return (CRAWL_OUTPUT_FORMATS as readonly string[]).includes(crawl.outputFormat ?? '')
    ? (crawl.outputFormat as CrawlOutputFormat)
    : undefined;
}
