import { z } from 'zod';
import { MAP_LINK_SOURCES, SITEMAP_MODES, type SitemapMode } from '../map.messages';
import type { ApiRoute } from './api-route';
import { optionalBoundedInt, optionalBoundedString, optionalChoice } from './body-fields';
import { problemResponses } from './problem.schema';

/** Bounds of `POST /v1/map` (our decisions: docs/decisions/map.md). */
export const MAP_LIMITS = {
  defaultLimit: 5_000,
  maxLimit: 100_000,
  maxSearchLength: 500,
  defaultTimeoutMs: 30_000,
  minTimeoutMs: 1_000,
  maxTimeoutMs: 120_000,
  /** Links per credit: a map is billed one credit per started block of this many links answered. */
  linksPerCredit: 5_000,
} as const;

/** Credits of a map that answered `links` links: one per started block of `MAP_LIMITS.linksPerCredit`, at least one. */
export function mapCredits(links: number): number {
  return Math.max(1, Math.ceil(links / MAP_LIMITS.linksPerCredit));
}

/** Body of `POST /v1/map`. Like a crawl's start URL, `url` is only a string here; the URL check answers 422 `invalid_url`. */
export const mapBody = z
  .strictObject({
    url: z.string({ error: 'must be a string' }).meta({ description: 'Public http or https URL of the site, at most 2,048 characters.' }),
    search: optionalBoundedString(1, MAP_LIMITS.maxSearchLength).meta({
      description: 'Words to look for: only links whose URL or link text holds one of them are answered, most relevant first.',
    }),
    limit: optionalBoundedInt(1, MAP_LIMITS.maxLimit).meta({
      description: `Most links answered (default ${MAP_LIMITS.defaultLimit.toLocaleString('en')}).`,
    }),
    include_subdomains: z
      .boolean({ error: 'must be a boolean' })
      .nullish()
      .transform((value) => value ?? false)
      .meta({ description: "Also answer links on the site's other subdomains (default false: the URL's host only, `www.` or not)." }),
    sitemap: optionalChoice(SITEMAP_MODES)
      .transform((value): SitemapMode => value ?? 'include')
      .meta({
        description:
          '`include` (default): sitemaps and the links of the page; `only`: sitemaps alone; `skip`: the links of the page alone.',
      }),
    timeout_ms: optionalBoundedInt(MAP_LIMITS.minTimeoutMs, MAP_LIMITS.maxTimeoutMs).meta({
      description: `Time for the whole map, in ms (default ${MAP_LIMITS.defaultTimeoutMs.toLocaleString('en')}); what is found by then is answered, with \`complete: false\`.`,
    }),
  })
  .meta({ id: 'MapRequest' });
export type MapBody = z.output<typeof mapBody>;

export const mapLinkResource = z
  .object({
    url: z.string(),
    source: z.enum(MAP_LINK_SOURCES).meta({ description: 'Where the URL was found first: a sitemap, or the page.' }),
    lastmod: z.string().optional().meta({ description: "The sitemap's `<lastmod>`, as written." }),
    title: z.string().optional().meta({ description: 'The text of the first link to it on the page.' }),
  })
  .meta({ id: 'MapLink' });
export type MapLinkResource = z.infer<typeof mapLinkResource>;

export const mapResultResource = z
  .object({
    url: z.string().meta({ description: 'The URL mapped, as given.' }),
    links: z.array(mapLinkResource).meta({
      description:
        'Normalised and deduplicated as a crawl does; the page and its links first, then each sitemap’s in the order the sitemaps were found; by relevance with `search`.',
    }),
    found: z
      .number()
      .int()
      .min(0)
      .meta({ description: 'Distinct links found (matching `search`, when given); more than `links` when `limit` cut them.' }),
    complete: z
      .boolean()
      .meta({ description: 'False when the time ran out or a size bound stopped reading before every source was read.' }),
    sources: z
      .object({
        robots_txt: z.enum(['read', 'missing', 'failed', 'skipped']),
        sitemaps_read: z.array(z.string()),
        sitemaps_failed: z.array(z.object({ url: z.string(), reason: z.string() })),
        page_links: z.number().int().min(0).meta({ description: 'In-scope links on the page (0 with `sitemap: only`).' }),
      })
      .meta({ description: 'What was read to make the map.' }),
  })
  .meta({ id: 'MapResult' });
export type MapResultResource = z.infer<typeof mapResultResource>;

/** The Map API: a site's URLs from its sitemaps and page, without crawling it. */
export const mapRoutes: ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/map',
    operationId: 'mapSite',
    summary: "List a site's URLs",
    description:
      "Reads the site's robots.txt `Sitemap:` lines, `/sitemap.xml`, sitemap indexes and gzipped sitemaps, and the links of the page itself, " +
      'and answers the URLs on the site, normalised and deduplicated. Billed one credit per started 5,000 links answered (at least one); ' +
      'a map that fails costs nothing. Takes one of the Fetch concurrency slots while it runs.',
    tag: 'Map',
    body: mapBody,
    responses: {
      200: {
        description: "The site's URLs.",
        contentType: 'application/json',
        schema: mapResultResource,
        headers: {
          'X-Request-Cost': 'Credits billed.',
          'Concurrency-Limit': 'The account’s concurrency.',
          'Concurrency-Remaining': 'Slots free after this request.',
        },
      },
      ...problemResponses(400, 402, 403, 413, 415, 422, 429, 503),
    },
  },
];
