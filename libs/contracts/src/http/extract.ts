import { z } from 'zod';
import { PREPARED_DOMAIN_STATUSES } from '../states';
import type { ApiRoute } from './api-route';
import { problemResponses } from './problem.schema';

/** Bounds of the Extract endpoints (spec-extract-fetch §4; the spec is silent on the numbers). */
export const EXTRACT_LIMITS = {
  /** Example URLs in one request: more is a crawl, and a preparation fetches a bounded number of pages anyway. */
  maxExampleUrls: 20,
  maxUrlLength: 2_048,
  /** A host name is at most 253 characters (RFC 1035). */
  maxDomainLength: 253,
} as const;

/** Page size of `GET /v1/extract/domains`. */
export const EXTRACT_DOMAIN_PAGE_SIZE = { min: 1, max: 1_000, fallback: 100 } as const;

/**
 * Body of `POST /v1/extract/prepared-domains`. `domain` may be a host (`www.shop.example`) or a URL;
 * it is prepared as its registrable domain (`shop.example`), which the answer names.
 */
export const prepareDomainBody = z
  .strictObject({
    domain: z
      .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') })
      .min(1, { error: 'must not be empty' })
      .max(EXTRACT_LIMITS.maxDomainLength + 16, { error: 'is too long for a domain' })
      .meta({ description: 'The domain to prepare: a host name such as `www.shop.example`, or a URL of it.' }),
    example_urls: z
      .array(
        z
          .string({ error: 'must be a string' })
          .min(1)
          .max(EXTRACT_LIMITS.maxUrlLength, { error: `must be at most ${EXTRACT_LIMITS.maxUrlLength} characters long` }),
        { error: 'must be an array of URLs' },
      )
      .max(EXTRACT_LIMITS.maxExampleUrls, { error: `must hold at most ${EXTRACT_LIMITS.maxExampleUrls} URLs` })
      .nullish()
      .transform((value) => value ?? [])
      .meta({
        description:
          'Pages of interest on the domain (product pages, articles…): the preparation learns from them first. ' +
          `At most ${EXTRACT_LIMITS.maxExampleUrls}, each an http(s) URL of the domain.`,
      }),
  })
  .meta({ id: 'PrepareDomainRequest' });
export type PrepareDomainBody = z.output<typeof prepareDomainBody>;

/** Body of the admin API's `POST /admin/v1/extract/domains/{domain}/prepare` (optional: other example URLs). */
export const prepareAgainBody = prepareDomainBody.pick({ example_urls: true });
export type PrepareAgainBody = z.output<typeof prepareAgainBody>;

const timestamp = z.iso.datetime();

/** A page type of a prepared domain and the fields `parsed` may hold for it. */
export const preparedPageType = z
  .object({
    name: z.string().meta({ description: 'What the pages are, e.g. `product`, `listing`, `article`.' }),
    fields: z.array(z.string()).meta({ description: 'Field names `parsed` may hold for such a page; stable, only ever added to.' }),
  })
  .meta({ id: 'PreparedPageType' });

/**
 * A prepared domain (spec-extract-fetch §2, "Prepared domain"). Shared by every tenant, so it never
 * shows who asked or with which example URLs. Absent fields are left out, never `null`.
 */
export const preparedDomainResource = z
  .object({
    domain: z.string().meta({ description: 'The registrable domain prepared.' }),
    status: z.enum(PREPARED_DOMAIN_STATUSES).meta({
      description:
        '`queued` (waiting for a preparer), `preparing`, `ready` (Extract serves it), `failed` (see `failure_reason`). ' +
        'A domain prepared again is `preparing` while `served` stays true.',
    }),
    served: z.boolean().meta({ description: 'Whether `extract=auto` serves the domain now.' }),
    progress: z.object({
      pages_fetched: z.number().int().min(0),
      pages_analysed: z.number().int().min(0),
    }),
    needs_js_render: z
      .boolean()
      .meta({ description: 'Its pages show their data only once rendered: send `js_render=true` with `extract=auto`.' }),
    page_types: z.array(preparedPageType),
    recipe_version: z.number().int().min(1).optional(),
    failure_reason: z.string().optional(),
    requested_at: timestamp,
    ready_at: timestamp.optional(),
    failed_at: timestamp.optional(),
  })
  .meta({ id: 'PreparedDomain' });
export type PreparedDomainResource = z.infer<typeof preparedDomainResource>;

/** `GET /v1/extract/domains`: every domain Extract serves now, by name; `next_cursor` absent on the last page. */
export const extractDomainListResource = z
  .object({
    domains: z.array(
      z.object({
        domain: z.string(),
        needs_js_render: z.boolean(),
        page_types: z.array(preparedPageType),
        recipe_version: z.number().int().min(1),
        ready_at: timestamp,
      }),
    ),
    next_cursor: z.string().optional(),
  })
  .meta({ id: 'ExtractDomainList' });
export type ExtractDomainListResource = z.infer<typeof extractDomainListResource>;

/** Query of `GET /v1/extract/domains`. */
export const listExtractDomainsQuery = z.object({
  cursor: z.string().optional().meta({ description: 'The `next_cursor` of the previous page.' }),
  limit: z
    .number()
    .int()
    .min(EXTRACT_DOMAIN_PAGE_SIZE.min)
    .max(EXTRACT_DOMAIN_PAGE_SIZE.max)
    .default(EXTRACT_DOMAIN_PAGE_SIZE.fallback)
    .optional()
    .meta({ description: `Domains per page, 1 to 1,000 (default ${EXTRACT_DOMAIN_PAGE_SIZE.fallback}).` }),
});

const domainParams = z.object({ domain: z.string().meta({ description: 'A host or registrable domain, e.g. `shop.example`.' }) });

/** Extract's prepared domains (spec-extract-fetch §4). */
export const extractRoutes: ApiRoute[] = [
  {
    method: 'post',
    path: '/v1/extract/prepared-domains',
    operationId: 'prepareDomain',
    summary: 'Ask for a domain to be prepared for Extract',
    description:
      'Any key may ask; a domain already ready, queued or preparing is not prepared twice (the answer is its record). ' +
      'A new domain counts against the account’s domains per billing period.',
    tag: 'Extract',
    body: prepareDomainBody,
    responses: {
      202: { description: 'The domain’s record.', contentType: 'application/json', schema: preparedDomainResource },
      ...problemResponses(400, 402, 403, 413, 415, 422, 429),
    },
  },
  {
    method: 'get',
    path: '/v1/extract/prepared-domains/{domain}',
    operationId: 'getPreparedDomain',
    summary: 'Read the preparation of a domain',
    tag: 'Extract',
    params: domainParams,
    responses: { 200: preparedDomainResource, ...problemResponses(400, 404) },
  },
  {
    method: 'get',
    path: '/v1/extract/domains',
    operationId: 'listExtractDomains',
    summary: 'List every domain Extract serves now',
    tag: 'Extract',
    query: listExtractDomainsQuery,
    responses: { 200: extractDomainListResource, ...problemResponses(400) },
  },
];
