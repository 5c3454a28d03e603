import type { TargetPage } from '../target-fetch/fetch-engine';
import { decodePageCopy, encodePageCopy } from './page-copy-codec';
import type { SubjectSlots } from './subject-slots';

/** A kept page and when it was fetched. */
export interface PageCopy {
  page: TargetPage;
  fetchedAt: number;
}

/** Where a tenant's kept pages live, by request key (`copyKeyOf`). */
export interface PageCopies {
  /** The copy of `key` fetched at most `maxAgeMs` ago, if any. */
  recall(tenantId: string, key: string, maxAgeMs: number): Promise<PageCopy | undefined>;
  /** Keeps `page` as the copy of `key` (replacing the last); false when it is larger than a copy may be. */
  keep(tenantId: string, key: string, page: TargetPage): Promise<boolean>;
}

/**
 * Kept pages in subject slots (`<prefix>.<tenant>.<key>`): no tenant can name another's, and a new
 * copy replaces the last. The stream's bounds are the operator's budget (`PAGE_COPY_MAX_BYTES`,
 * `PAGE_COPY_TTL_MS`); a copy larger than `maxEntryBytes` is not kept.
 */
export class NatsPageCopies implements PageCopies {
  constructor(
    private readonly slots: SubjectSlots,
    /** Largest copy, in bytes: bounded by NATS's max_payload (`PAGE_COPY_MAX_ENTRY_BYTES`). */
    private readonly maxEntryBytes: number,
  ) {}

  async recall(tenantId: string, key: string, maxAgeMs: number): Promise<PageCopy | undefined> {
    const stored = await this.slots.last(`${tenantId}.${key}`);
    if (!stored || Date.now() - stored.storedAt > maxAgeMs) return undefined;
    return { page: decodePageCopy(stored.data), fetchedAt: stored.storedAt };
  }

  async keep(tenantId: string, key: string, page: TargetPage): Promise<boolean> {
    const bytes = encodePageCopy(page);
    if (bytes.length > this.maxEntryBytes) return false;
    await this.slots.put(`${tenantId}.${key}`, bytes);
    return true;
  }
}
