import { z } from 'zod';
import { optionalBoundedInt, optionalStringList } from '../problems/body-validation';

/** Bounds of `POST /v1/crawls` (spec-crawl-api §4 and §8). */
export const CRAWL_LIMITS = {
  minLimit: 1,
  maxLimit: 100_000,
  defaultMaxItems: 100,
  defaultMaxPages: 100,
  /** Our bound (the spec is silent): more patterns than this is a mistake, not a crawl. */
  maxPatterns: 100,
  /** Our bound: a pattern is a substring of a URL, and a followed URL is at most 2,048 characters. */
  maxPatternLength: 2_048,
} as const;

/** The formats `output_format` accepts. */
export const OUTPUT_FORMATS = ['html'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * Body of `POST /v1/crawls`. The start URL is only required to be a string here: whether it is a
 * public http(s) URL is the start-URL check's job (422 `invalid_start_url`).
 */
export const startCrawlBody = z.strictObject({
  url: z.string({ error: 'must be a string' }),
  depth: optionalBoundedInt(CRAWL_LIMITS.minLimit, CRAWL_LIMITS.maxLimit),
  max_items: optionalBoundedInt(CRAWL_LIMITS.minLimit, CRAWL_LIMITS.maxLimit),
  max_pages: optionalBoundedInt(CRAWL_LIMITS.minLimit, CRAWL_LIMITS.maxLimit),
  include_patterns: optionalStringList(CRAWL_LIMITS.maxPatterns, CRAWL_LIMITS.maxPatternLength),
  exclude_patterns: optionalStringList(CRAWL_LIMITS.maxPatterns, CRAWL_LIMITS.maxPatternLength),
  output_format: z
    .string({ error: 'must be a string' })
    .refine((value): value is OutputFormat => (OUTPUT_FORMATS as readonly string[]).includes(value), {
      error: `must be one of: ${OUTPUT_FORMATS.join(', ')}`,
    })
    .nullish()
    .transform((value) => (value ?? undefined) as OutputFormat | undefined),
});
export type StartCrawlBody = z.output<typeof startCrawlBody>;

/** The settings a crawl runs with: the request with every default applied. */
export interface CrawlSettings {
  url: string;
  depth: number | undefined;
  maxItems: number;
  maxPages: number;
  includePatterns: string[];
  excludePatterns: string[];
  outputFormat: OutputFormat | undefined;
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
  };
}
