import type { ExtractDomainList, ListExtractDomainsQuery, PreparedDomain, PrepareDomainRequest } from '../generated/api-types';
import { paginate } from '../http/pagination';
import type { Transport } from '../http/transport';
import { waitUntil, type WaitOptions } from '../waiting';

/** A domain Extract serves now, as `GET /v1/extract/domains` lists it. */
export type ServedDomain = ExtractDomainList['domains'][number];

/** Prepared domains of `extract=auto`. */
export class ExtractResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Asks for a domain to be prepared (`202` with its record); a domain already ready or preparing
   * is not prepared twice. Retried: asking again only answers the same record.
   *
   * @throws TrawlApiError `extract_domain_quota_exceeded` (429) past the account's allowance: not retried.
   */
  prepare(request: PrepareDomainRequest, options: { signal?: AbortSignal } = {}): Promise<PreparedDomain> {
    return this.transport.json<PreparedDomain>({
      method: 'POST',
      path: '/v1/extract/prepared-domains',
      json: request,
      retrySafe: true,
      signal: options.signal,
    });
  }

  get(domain: string, options: { signal?: AbortSignal } = {}): Promise<PreparedDomain> {
    return this.transport.json<PreparedDomain>({
      method: 'GET',
      path: `/v1/extract/prepared-domains/${encodeURIComponent(domain)}`,
      retrySafe: true,
      signal: options.signal,
    });
  }

  /** Every domain Extract serves now, page by page as iterated. */
  domains(
    query: Omit<ListExtractDomainsQuery, 'cursor'> = {},
    options: { signal?: AbortSignal } = {},
  ): AsyncGenerator<ServedDomain, void, undefined> {
    return paginate(
      (cursor) =>
        this.transport.json<ExtractDomainList>({
          method: 'GET',
          path: '/v1/extract/domains',
          query: { ...query, cursor },
          retrySafe: true,
          signal: options.signal,
        }),
      (page) => page.domains,
      (page) => page.next_cursor,
    );
  }

  /** Resolves with the domain's record once it is `ready` or `failed`, polling it. */
  waitFor(domain: string, options: WaitOptions<PreparedDomain> = {}): Promise<PreparedDomain> {
    return waitUntil(
      () => this.get(domain, options),
      (record) => record.status === 'ready' || record.status === 'failed',
      { pollIntervalMs: 2_000, ...options, what: `${domain} to be prepared` },
    );
  }
}
