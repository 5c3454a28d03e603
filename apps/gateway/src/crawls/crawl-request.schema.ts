import { type CrawlOutputFormat, type SitemapMode } from '@trawl/contracts';
import { CRAWL_LIMITS, type StartCrawlBody } from '@trawl/contracts/http';

/** The settings a crawl runs with: the request with every default applied. */
export interface CrawlSettings {
  url: string;
  depth: number | undefined;
  maxItems: number;
  maxPages: number;
  includePatterns: string[];
  excludePatterns: string[];
  outputFormat: CrawlOutputFormat | undefined;
  sitemap: SitemapMode;
  respectRobots: boolean;
  /** Seconds within which a kept copy of a page serves instead of the site; undefined: every page fetched. */
  maxAge: number | undefined;
}

export function effectiveSettings(body: StartCrawlBody, startUrl: string): CrawlSettings {
  return {
    url: startUrl,
    depth: body.depth,
    maxItems: body.max_items ?? CRAWL_LIMITS.defaultMaxItems,
    maxPages: body.max_pages ?? CRAWL_LIMITS.defaultMaxPages,
    includePatterns: body.include_patterns ?? [],
    excludePatterns: body.exclude_patterns ?? [],
    outputFormat: body.output_format,
    // Both default to the spec's crawl: links only, robots.txt not consulted (docs/decisions/crawl-api.md).
    sitemap: body.sitemap ?? 'skip',
    respectRobots: body.respect_robots ?? false,
    maxAge: body.max_age,
  };
}
