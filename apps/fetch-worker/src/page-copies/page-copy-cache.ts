import type { FetchRequestV1 } from '@trawl/contracts';
import type { Logger } from '@trawl/observability';
import type { TargetPage } from '../target-fetch/fetch-engine';
import { copyKeyOf, type CopyScope } from './copy-key';
import type { PageCopies, PageCopy } from './page-copies';
import type { PageCopyMetrics } from './page-copy.metrics';

/**
 * Kept copies for `max_age` requests: recalls a fresh copy of the same request of the same tenant,
 * keeps what was fetched. Only GETs without a body take part (a POST is never answered from a copy),
 * only pages the target answered 2xx or 3xx are kept, and a store that cannot be read or written
 * is a miss, counted and logged: the page is fetched as without `max_age`.
 */
export class PageCopyCache {
  constructor(
    private readonly store: PageCopies,
    private readonly metrics: PageCopyMetrics,
    private readonly logger: Logger,
  ) {}

  /** The copy answering `request`, when it asks for one and one is fresh enough. Never throws. */
  async recall(request: FetchRequestV1, scope: CopyScope = 'fetch'): Promise<PageCopy | undefined> {
    if (!takesPart(request)) return undefined;
    try {
      const copy = await this.store.recall(request.tenant_id, copyKeyOf(request, scope), request.options.max_age! * 1000);
      this.metrics.copies.inc({ outcome: copy ? 'hit' : 'miss' });
      return copy;
    } catch (error) {
      this.failed(error, request, 'read');
      return undefined;
    }
  }

  /** Keeps `page` as the copy of `request` when it asked for copies. Never throws. */
  async keep(request: FetchRequestV1, page: TargetPage, scope: CopyScope = 'fetch'): Promise<void> {
    if (!takesPart(request) || page.status < 200 || page.status >= 400) return;
    try {
      const kept = await this.store.keep(request.tenant_id, copyKeyOf(request, scope), page);
      this.metrics.copies.inc({ outcome: kept ? 'kept' : 'too_large' });
    } catch (error) {
      this.failed(error, request, 'write');
    }
  }

  private failed(error: unknown, request: FetchRequestV1, step: 'read' | 'write'): void {
    this.metrics.copies.inc({ outcome: 'failed' });
    this.logger.warn({ err: error, request_id: request.request_id }, `page copy ${step} failed; fetched as without max_age`);
  }
}

function takesPart(request: FetchRequestV1): boolean {
  return request.options.max_age !== undefined && request.method === 'GET' && request.body_base64 === undefined;
}

/** What a copy-less worker (or a test) uses: nothing is recalled, nothing kept. */
export const NO_PAGE_COPIES: Pick<PageCopyCache, 'recall' | 'keep'> = {
  recall: () => Promise.resolve(undefined),
  keep: () => Promise.resolve(),
};
