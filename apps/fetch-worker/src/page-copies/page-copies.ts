import type { JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import { ensureStream } from '@trawl/messaging';
import type { TargetPage } from '../target-fetch/fetch-engine';
import { decodePageCopy, encodePageCopy } from './page-copy-codec';

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

export interface PageCopyStoreSettings {
  stream: string;
  /** Subjects are `<prefix>.<tenant>.<key>`: one slot per tenant and request. */
  subjectPrefix: string;
  /** The operator's budget for every copy (`PAGE_COPY_MAX_BYTES`): the oldest go first. */
  maxBytes: number;
  /** Copies expire this long after they were fetched (`PAGE_COPY_TTL_MS`). */
  ttlMs: number;
  /** Largest copy, in bytes: bounded by NATS's max_payload (`PAGE_COPY_MAX_ENTRY_BYTES`). */
  maxEntryBytes: number;
  replicas: number;
}

/**
 * Kept pages in one JetStream stream (limits retention, one message per subject, bounded by bytes
 * and age, the oldest dropped first): the subject of a copy is its tenant's and its request's, so
 * no tenant can name another's, and a new copy replaces the last. Read with a direct get of the
 * subject's last message; its server time is when the page was fetched. The stream is created by
 * the first worker that keeps a page, with that worker's budget.
 */
export class NatsPageCopies implements PageCopies {
  private ready?: Promise<void>;

  constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly settings: PageCopyStoreSettings,
  ) {}

  async recall(tenantId: string, key: string, maxAgeMs: number): Promise<PageCopy | undefined> {
    await this.opened();
    // null when the subject holds nothing (never kept, or expired).
    const stored = await this.jsm.streams.getMessage(this.settings.stream, { last_by_subj: this.subjectOf(tenantId, key) });
    if (!stored) return undefined;
    const fetchedAt = stored.time.getTime();
    if (Date.now() - fetchedAt > maxAgeMs) return undefined;
    return { page: decodePageCopy(stored.data), fetchedAt };
  }

  async keep(tenantId: string, key: string, page: TargetPage): Promise<boolean> {
    const bytes = encodePageCopy(page);
    if (bytes.length > this.settings.maxEntryBytes) return false;
    await this.opened();
    // The subject keeps one message: the server drops the last copy as this one lands.
    await this.js.publish(this.subjectOf(tenantId, key), bytes);
    return true;
  }

  private subjectOf(tenantId: string, key: string): string {
    return `${this.settings.subjectPrefix}.${tenantId}.${key}`;
  }

  private opened(): Promise<void> {
    this.ready ??= ensureStream(this.jsm, {
      name: this.settings.stream,
      subjects: [`${this.settings.subjectPrefix}.>`],
      retention: 'limits',
      maxBytes: this.settings.maxBytes,
      maxAgeMs: this.settings.ttlMs,
      maxMsgsPerSubject: 1,
      replicas: this.settings.replicas,
    }).catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }
}
