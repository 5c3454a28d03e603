import { z } from 'zod';
import { CACHE_STATUSES, MAX_AGE_SECONDS } from '../fetch.messages';
import { SITEMAP_MODES } from '../map.messages';
import { CRAWL_OUTPUT_FORMATS } from '../output-formats';
import { CONTENT_STATUSES, CRAWL_STATUSES, CRAWL_STOP_REASONS } from '../states';
import type { ApiRoute } from './api-route';
import { optionalBoundedInt, optionalChoice, optionalStringList } from './body-fields';
import { problemResponses } from './problem.schema';

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

/** Page sizes of the crawl list and of a crawl's results (spec-crawl-api §4 and §8). */
export const CRAWL_PAGE_SIZES = {
  list: { min: 1, max: 100, fallback: 20 },
  results: { min: 1, max: 10_000, fallback: 1_000 },
} as const;

/** `error.code` of a failed crawl (spec-crawl-api §3). */
export const CRAWL_FAILURE_CODES = ['seed_unreachable', 'no_items_found', 'insufficient_credits', 'internal_error'] as const;
export type CrawlFailureCode = (typeof CRAWL_FAILURE_CODES)[number];

/**
 * Body of `POST /v1/crawls`. The start URL is only required to be a string here: whether it is a
 * public http(s) URL is the start-URL check's job (422 `invalid_start_url`).
 */
export const startCrawlBody = z
  .strictObject({
    url: z.string({ error: 'must be a string' }).meta({ description: 'Public http or https start URL, at most 2,048 characters.' }),
    depth: optionalBoundedInt(CRAWL_LIMITS.minLimit, CRAWL_LIMITS.maxLimit).meta({
      description: 'Link depth to follow; unlimited when left out.',
    }),
    max_items: optionalBoundedInt(CRAWL_LIMITS.minLimit, CRAWL_LIMITS.maxLimit).meta({
      description: `URLs to keep before the crawl stops (default ${CRAWL_LIMITS.defaultMaxItems}).`,
    }),
    max_pages: optionalBoundedInt(CRAWL_LIMITS.minLimit, CRAWL_LIMITS.maxLimit).meta({
      description: `Pages to fetch before the crawl stops (default ${CRAWL_LIMITS.defaultMaxPages}).`,
    }),
    include_patterns: optionalStringList(CRAWL_LIMITS.maxPatterns, CRAWL_LIMITS.maxPatternLength).meta({
      description: 'A URL is kept (and opened) only if it contains one of these texts.',
    }),
    exclude_patterns: optionalStringList(CRAWL_LIMITS.maxPatterns, CRAWL_LIMITS.maxPatternLength).meta({
      description: 'A URL containing any of these texts is dropped.',
    }),
    // A string first (a number is a 400 type error), then one of the formats (a 422 range error).
    output_format: optionalChoice(CRAWL_OUTPUT_FORMATS).meta({ description: '`html`: the HTML of each kept page is fetched too.' }),
    sitemap: optionalChoice(SITEMAP_MODES).meta({
      description:
        "`skip` (default): links only, as the spec's crawl; `include`: the site's sitemaps seed the crawl too (robots.txt `Sitemap:` lines, else `/sitemap.xml`); `only`: the sitemaps' URLs alone, no link is followed.",
    }),
    respect_robots: z
      .boolean({ error: 'must be a boolean' })
      .nullish()
      .transform((value) => value ?? undefined)
      .meta({
        description:
          "Skip the URLs the site's robots.txt disallows (counted in `robots_disallowed`) and keep its `Crawl-delay` between pages (default false).",
      }),
    max_age: optionalBoundedInt(1, MAX_AGE_SECONDS).meta({
      description:
        'Seconds: a page you fetched within this time (this or another crawl, same options) is taken from its kept copy instead of the site, at 1 credit; fetched pages are kept. Left out: every page is fetched.',
    }),
  })
  .meta({ id: 'StartCrawlRequest' });
export type StartCrawlBody = z.output<typeof startCrawlBody>;

const timestamp = z.iso.datetime();
const coverage = z.object({
  pages_fetched: z.number().int().min(0),
  pages_failed: z.number().int().min(0),
  items_found: z.number().int().min(0),
});
const crawlFailure = z.object({ code: z.enum(CRAWL_FAILURE_CODES), detail: z.string() });

/** The crawl object of spec-crawl-api §2, without `results` and `next_cursor`. Absent fields are left out, never `null`. */
export const crawlResource = z
  .object({
    crawl_id: z.string(),
    status: z.enum(CRAWL_STATUSES),
    stop_reason: z.enum(CRAWL_STOP_REASONS).optional(),
    /** Only when `status` is `failed`. */
    error: crawlFailure.optional(),
    url: z.string(),
    depth: z.number().int().optional(),
    max_items: z.number().int(),
    max_pages: z.number().int(),
    include_patterns: z.array(z.string()),
    exclude_patterns: z.array(z.string()),
    output_format: z.enum(CRAWL_OUTPUT_FORMATS).optional(),
    sitemap: z.enum(SITEMAP_MODES),
    respect_robots: z.boolean(),
    max_age: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Seconds within which a kept copy of a page serves instead of the site (when asked).' }),
    discovery: z
      .array(z.enum(['links', 'sitemap']))
      .meta({ description: '`["links"]` as in the spec; `["links", "sitemap"]` with `sitemap: include`, `["sitemap"]` with `only`.' }),
    sitemap_status: z
      .enum(['pending', 'read', 'failed'])
      .optional()
      .meta({ description: 'Whether the sitemaps were read yet (with `sitemap` other than `skip`); `failed`: none could be.' }),
    sitemap_urls: z.number().int().min(0).meta({ description: 'URLs in scope the sitemaps named, before patterns and limits.' }),
    robots_disallowed: z.number().int().min(0).meta({ description: 'URLs robots.txt kept the crawl from (with `respect_robots`).' }),
    coverage,
    duplicates_removed: z.number().int().min(0),
    created_at: timestamp,
    finished_at: timestamp.optional(),
  })
  .meta({ id: 'Crawl' });
export type CrawlResource = z.infer<typeof crawlResource>;

/** Crawls with `max_age`: whether a result's page came from a kept copy. */
const pageCache = z
  .enum(CACHE_STATUSES)
  .optional()
  .meta({ description: 'Crawls with `max_age`: the page came from a kept copy (`hit`, billed 1 credit) or was fetched (`miss`).' });

/** One URL a crawl found; `content_*` only with `output_format`. */
export const crawlResultResource = z
  .object({
    url: z.string(),
    content_status: z.enum(CONTENT_STATUSES).optional(),
    content_url: z.string().optional(),
    cache: pageCache,
  })
  .meta({ id: 'CrawlResult' });
export type CrawlResultResource = z.infer<typeof crawlResultResource>;

/** `GET /v1/crawls/{crawl_id}`: the crawl, one page of results, and the cursor of the next read. */
export const crawlPageResource = crawlResource
  .extend({
    results: z.array(crawlResultResource),
    /** `null` once the crawl has ended and its last results were read. */
    next_cursor: z.string().nullable(),
  })
  .meta({ id: 'CrawlPage' });
export type CrawlPageResource = z.infer<typeof crawlPageResource>;

/** `GET /v1/crawls`: newest first; `next_cursor` absent on the last page. */
export const crawlListResource = z.object({ crawls: z.array(crawlResource), next_cursor: z.string().optional() }).meta({ id: 'CrawlList' });
export type CrawlListResource = z.infer<typeof crawlListResource>;

/** `POST /v1/crawls/{crawl_id}/stop`: the crawl's state after the stop (or its final state). */
export const stopCrawlResource = crawlResource
  .pick({ crawl_id: true, status: true, stop_reason: true, finished_at: true, error: true })
  .meta({ id: 'CrawlStop' });
export type StopCrawlResource = z.infer<typeof stopCrawlResource>;

/** One line of `GET /v1/crawls/{crawl_id}/download`. */
export const crawlDownloadLine = z
  .object({
    url: z.string(),
    content_status: z.enum(CONTENT_STATUSES).optional(),
    /** The page's HTML, once fetched. */
    content: z.string().optional(),
    cache: pageCache,
  })
  .meta({ id: 'CrawlDownloadLine' });
export type CrawlDownloadLine = z.infer<typeof crawlDownloadLine>;

/** Where a URL a crawl may have met went (`GET /v1/crawls/{crawl_id}/urls`). */
export const CRAWL_URL_FATES = [
  'kept',
  'duplicate',
  'start_url',
  'excluded',
  'out_of_scope',
  'over_max_items',
  'robots_disallowed',
  'not_seen',
] as const;
export type CrawlUrlFate = (typeof CRAWL_URL_FATES)[number];

/** How a kept URL's page stands. */
export const CRAWL_PAGE_STATES = ['queued', 'in_flight', 'fetched', 'failed', 'not_fetched'] as const;

export const crawlUrlFateResource = z
  .object({
    url: z.string().meta({ description: 'The URL asked about, as given.' }),
    normalized_url: z.string().meta({ description: 'Its normalised form, under which the crawl deduplicates.' }),
    fate: z.enum(CRAWL_URL_FATES).meta({
      description:
        '`kept`: a result; `duplicate`: the same URL as a result written another way (`result_url`); `start_url`: the seed, fetched but never a result; ' +
        '`excluded`: a pattern drops it (`pattern`); `out_of_scope`: not on the crawl’s site; `over_max_items`: met after `max_items` was reached; ' +
        '`robots_disallowed`: robots.txt disallows it (`respect_robots`); `not_seen`: no page the crawl opened linked to it (yet).',
    }),
    detail: z.string().meta({ description: 'The same, in a sentence.' }),
    result_url: z.string().optional().meta({ description: 'The result it is (`kept`), or is the same as (`duplicate`).' }),
    pattern: z
      .string()
      .optional()
      .meta({ description: '`excluded`: the exclude pattern it contains; absent when it contains none of the include patterns.' }),
    found_on: z
      .string()
      .optional()
      .meta({ description: 'The page it was a link of, or `sitemap` (`over_max_items`, `robots_disallowed`).' }),
    page: z
      .object({
        state: z.enum(CRAWL_PAGE_STATES),
        error: z
          .string()
          .optional()
          .meta({ description: 'A failed page’s code: `http_404`, `timeout`, `blocked_address`, `robots_txt`, …' }),
      })
      .optional()
      .meta({ description: 'The fetch of a kept (or start) URL.' }),
  })
  .meta({ id: 'CrawlUrlFate' });
export type CrawlUrlFateResource = z.infer<typeof crawlUrlFateResource>;

const crawlParams = z.object({ crawlId: z.string().meta({ description: 'The `crawl_id` of the crawl.' }) });
const cursor = z.string().optional().meta({ description: 'The `next_cursor` of the previous page.' });
const pageSize = ({ min, max, fallback }: { min: number; max: number; fallback: number }, what: string) =>
  z
    .number()
    .int()
    .min(min)
    .max(max)
    .default(fallback)
    .optional()
    .meta({ description: `${what} per page, ${min} to ${max.toLocaleString('en')} (default ${fallback.toLocaleString('en')}).` });

/** Query of `GET /v1/crawls`. */
export const listCrawlsQuery = z.object({ cursor, limit: pageSize(CRAWL_PAGE_SIZES.list, 'Crawls') });
/** Query of `GET /v1/crawls/{crawl_id}`. */
export const readCrawlQuery = z.object({ cursor, limit: pageSize(CRAWL_PAGE_SIZES.results, 'Results') });
/** Query of `GET /v1/crawls/{crawl_id}/urls`. */
export const crawlUrlQuery = z.object({
  url: z.string().meta({ description: 'The URL to ask about (http or https; any form the crawl would meet it in).' }),
});
/** Query of `GET /v1/crawls/{crawl_id}/contents/{content_id}`. */
export const crawlContentQuery = z.object({
  download: z.boolean().default(false).optional().meta({ description: '`true` answers the page as a file to save.' }),
});
/** Request headers of `POST /v1/crawls`. */
export const startCrawlHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .max(255)
    .optional()
    .meta({ description: 'A retry with the same key and body answers the same crawl and starts no second one.' }),
});

/** The Crawl API (spec-crawl-api §4). */
export const crawlsRoutes: ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/crawls',
    operationId: 'startCrawl',
    summary: 'Start a crawl',
    tag: 'Crawl',
    headers: startCrawlHeaders,
    body: startCrawlBody,
    responses: {
      202: {
        description: 'The crawl started; `Location` holds its path.',
        contentType: 'application/json',
        schema: crawlResource,
        headers: { Location: 'Path of the crawl.' },
      },
      ...problemResponses(400, 403, 409, 413, 415, 422, 429),
    },
  },
  {
    method: 'get',
    path: '/v1/crawls',
    operationId: 'listCrawls',
    summary: 'List crawls, newest first',
    tag: 'Crawl',
    query: listCrawlsQuery,
    responses: { 200: crawlListResource, ...problemResponses(400) },
  },
  {
    method: 'get',
    path: '/v1/crawls/{crawlId}',
    operationId: 'getCrawl',
    summary: 'Read a crawl and one page of its results',
    tag: 'Crawl',
    params: crawlParams,
    query: readCrawlQuery,
    responses: { 200: crawlPageResource, ...problemResponses(400, 404) },
  },
  {
    method: 'get',
    path: '/v1/crawls/{crawlId}/urls',
    operationId: 'getCrawlUrl',
    summary: 'Where one URL went: kept, a duplicate of which, excluded by which pattern, over a limit, disallowed…',
    tag: 'Crawl',
    params: crawlParams,
    query: crawlUrlQuery,
    responses: { 200: crawlUrlFateResource, ...problemResponses(400, 404) },
  },
  {
    method: 'get',
    path: '/v1/crawls/{crawlId}/download',
    operationId: 'downloadCrawl',
    summary: 'Download every result as NDJSON',
    tag: 'Crawl',
    params: crawlParams,
    responses: {
      200: {
        description: 'One JSON object per line (file `{crawl_id}.jsonl`); `X-Crawl-Status` holds the crawl status.',
        contentType: 'application/x-ndjson',
        schema: crawlDownloadLine,
        headers: { 'X-Crawl-Status': 'The crawl status when the download started.' },
      },
      ...problemResponses(400, 404),
    },
  },
  {
    method: 'get',
    path: '/v1/crawls/{crawlId}/contents/{contentId}',
    operationId: 'getCrawlContent',
    summary: "Read one kept page's HTML",
    tag: 'Crawl',
    params: crawlParams.extend({ contentId: z.string().meta({ description: "From a result's `content_url`." }) }),
    query: crawlContentQuery,
    responses: {
      200: { description: 'The page as fetched, served sandboxed (`Content-Security-Policy: sandbox`).', contentType: 'text/html' },
      ...problemResponses(400, 404),
    },
  },
  {
    method: 'post',
    path: '/v1/crawls/{crawlId}/stop',
    operationId: 'stopCrawl',
    summary: 'Stop a crawl',
    tag: 'Crawl',
    params: crawlParams,
    responses: { 200: stopCrawlResource, ...problemResponses(400, 404, 415) },
  },
];
