import { z } from 'zod';

/**
 * The Map API between the gateway and the fetch workers: the gateway checks the request and the
 * tenant's limits, sends a `MapRequestV1` over the streamed request/reply of `@trawl/messaging`, and
 * gets back a `MapReplyV1` head followed by the answer body (the public `MapResult` JSON, or a
 * problem), which it sends as is after billing `links`.
 */

/** Where a map's URLs come from: sitemaps and the start page (`include`), sitemaps alone, or the page alone. */
export const SITEMAP_MODES = ['include', 'only', 'skip'] as const;
export type SitemapMode = (typeof SITEMAP_MODES)[number];

/** Where one URL of a map was found. */
export const MAP_LINK_SOURCES = ['sitemap', 'page'] as const;
export type MapLinkSource = (typeof MAP_LINK_SOURCES)[number];

/** Why a map answered no result (the reply's `error.code`). */
export const MAP_FAILURE_CODES = ['invalid_url', 'site_unreachable', 'internal_error'] as const;
export type MapFailureCode = (typeof MAP_FAILURE_CODES)[number];

export const mapRequestV1 = z.object({
  v: z.literal(1),
  request_id: z.string().min(1),
  tenant_id: z.string().min(1),
  /** The start URL, already checked by the gateway (public http(s), a host name, no credentials). */
  url: z.string(),
  search: z.string().optional(),
  /** Most links answered. */
  limit: z.number().int().min(1),
  include_subdomains: z.boolean(),
  sitemap: z.enum(SITEMAP_MODES),
  /** Whole map, every document read included, in ms: what is found by then is answered. */
  timeout_ms: z.number().int().min(1),
  /** Leave out the URLs robots.txt disallows (a crawl with `respect_robots` seeding from sitemaps). */
  respect_robots: z.boolean().optional(),
});
export type MapRequestV1 = z.infer<typeof mapRequestV1>;

export const mapReplyV1 = z.object({
  v: z.literal(1),
  request_id: z.string(),
  /** HTTP status of the answer. */
  status: z.number().int(),
  /** Links in the answer: what the gateway bills. */
  links: z.number().int().min(0),
  /** URLs left out because robots.txt disallows them (requests with `respect_robots`). */
  robots_disallowed: z.number().int().min(0).optional(),
  error: z.object({ code: z.enum(MAP_FAILURE_CODES), detail: z.string() }).optional(),
});
export type MapReplyV1 = z.infer<typeof mapReplyV1>;
