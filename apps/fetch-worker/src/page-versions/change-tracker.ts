import { createHash } from 'node:crypto';
import type { ChangeStatus, FetchRequestV1 } from '@trawl/contracts';
import type { Logger } from '@trawl/observability';
import { Counter, type Registry } from 'prom-client';
import type { SubjectSlots } from '../page-copies';
import { compareVersions, type PageVersion } from './version-diff';

/** What `change_tracking` tells about one answer. */
export interface ChangeReport {
  status: ChangeStatus;
  /** When the version compared with was fetched (ms since the epoch). */
  previousFetchedAt?: number;
  diff?: string;
}

/** A version as stored: one JSON message per tenant and URL. */
interface StoredVersion {
  v: 1;
  kind: PageVersion['kind'];
  content: string;
}

/**
 * `change_tracking`: each tenant's last version of each URL in subject slots (`<tenant>.<URL
 * digest>`, bounded by `PAGE_VERSION_MAX_BYTES` and `PAGE_VERSION_TTL_MS`), compared with the page
 * just fetched, which then becomes the last version. Versions are per URL, not per request: asking
 * with other options still compares the page. A store that fails answers no verdict (the answer goes
 * out without it), counted and logged.
 */
export class ChangeTracker {
  private readonly changes: Counter<'status'>;

  constructor(
    private readonly slots: SubjectSlots,
    /** Largest version stored, in bytes (under NATS's max_payload); a larger text is kept as a digest. */
    private readonly maxVersionBytes: number,
    registry: Registry,
    private readonly logger: Logger,
  ) {
    this.changes = new Counter({
      name: 'trawl_page_changes_total',
      help: 'Pages compared with change_tracking, by verdict: new, same, changed, removed, or failed (the version store could not be read or written)',
      labelNames: ['status'],
      registers: [registry],
    });
  }

  /** Compares `current` with the tenant's last version of the URL and keeps it. Never throws. */
  async track(request: FetchRequestV1, current: PageVersion): Promise<ChangeReport | undefined> {
    const slot = `${request.tenant_id}.${createHash('sha256').update(request.url).digest('base64url')}`;
    try {
      const stored = await this.slots.last(slot);
      const previous = stored ? (JSON.parse(Buffer.from(stored.data).toString('utf8')) as StoredVersion) : undefined;
      const kept = this.storable(current);
      const comparison = compareVersions(previous, kept);
      await this.slots.put(slot, Buffer.from(JSON.stringify({ v: 1, kind: kept.kind, content: kept.content } satisfies StoredVersion)));
      this.changes.inc({ status: comparison.status });
      return { ...comparison, ...(stored && { previousFetchedAt: stored.storedAt }) };
    } catch (error) {
      this.changes.inc({ status: 'failed' });
      this.logger.warn({ err: error, request_id: request.request_id }, 'change tracking failed; answered without a verdict');
      return undefined;
    }
  }

  /** A text too large for one message is compared by its digest (changed or not, without a diff). */
  private storable(version: PageVersion): PageVersion {
    if (Buffer.byteLength(version.content) <= this.maxVersionBytes) return version;
    return { kind: 'digest', content: createHash('sha256').update(version.content).digest('hex') };
  }
}
