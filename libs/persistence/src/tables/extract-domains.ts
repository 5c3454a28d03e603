import type { PreparedDomainStatus } from '@trawl/contracts';
import { columnNames } from './columns';

/** One page type of a domain's served recipe, as the API shows it (`extract_domains.page_types`). */
export interface PreparedPageType {
  name: string;
  /** Active field names: what `parsed` may hold for a page of this type. */
  fields: string[];
}

/**
 * An `extract_domains` row: a domain Extract is asked to serve, shared by every tenant. The gateway
 * writes it when a domain is asked for and reads it to serve `extract=auto`; the scheduler's
 * preparer moves it through its states. Migration 1764000000140-extract.
 */
export interface ExtractDomainsRow {
  /** Registrable domain (public suffix list, private suffixes included), lower case. */
  domain: string;
  status: PreparedDomainStatus;
  attempt: number;
  lease_until: Date | null;
  holder: string | null;
  deliveries: number;
  example_urls: string[];
  pages_fetched: number;
  pages_analysed: number;
  needs_render: boolean;
  recipe_version: number | null;
  page_types: PreparedPageType[];
  failure_reason: string | null;
  requested_at: Date;
  started_at: Date | null;
  ready_at: Date | null;
  failed_at: Date | null;
  updated_at: Date;
}

/** Every column of `extract_domains`. */
export const EXTRACT_DOMAINS_COLUMNS = columnNames<ExtractDomainsRow>({
  domain: true,
  status: true,
  attempt: true,
  lease_until: true,
  holder: true,
  deliveries: true,
  example_urls: true,
  pages_fetched: true,
  pages_analysed: true,
  needs_render: true,
  recipe_version: true,
  page_types: true,
  failure_reason: true,
  requested_at: true,
  started_at: true,
  ready_at: true,
  failed_at: true,
  updated_at: true,
});
