import type { ExtractDomainListResource, PreparedDomainResource } from '@trawl/contracts/http';
import type { PreparedDomainRecord } from './prepared-domains.repository';

/** The record as the API shows it: progress and the served recipe's page types, never who asked or with which URLs. */
export function presentPreparedDomain(record: PreparedDomainRecord): PreparedDomainResource {
  return {
    domain: record.domain,
    status: record.status,
    served: record.recipe_version !== null,
    progress: { pages_fetched: record.pages_fetched, pages_analysed: record.pages_analysed },
    needs_js_render: record.needs_render,
    page_types: record.page_types,
    ...(record.recipe_version !== null && { recipe_version: record.recipe_version }),
    ...(record.failure_reason !== null && { failure_reason: record.failure_reason }),
    requested_at: record.requested_at.toISOString(),
    ...(record.ready_at !== null && { ready_at: record.ready_at.toISOString() }),
    ...(record.failed_at !== null && { failed_at: record.failed_at.toISOString() }),
  };
}

/** One served domain of `GET /v1/extract/domains` (the list holds only domains with a recipe). */
export function presentServedDomain(record: PreparedDomainRecord): ExtractDomainListResource['domains'][number] {
  return {
    domain: record.domain,
    needs_js_render: record.needs_render,
    page_types: record.page_types,
    recipe_version: record.recipe_version ?? 1,
    ready_at: (record.ready_at ?? record.updated_at).toISOString(),
  };
}
