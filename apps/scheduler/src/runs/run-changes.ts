import {
  CHANGE_STATUSES,
  type ChangeStatus,
  LISTED_CHANGE_STATUSES,
  WEBHOOK_CHANGED_PAGES_LIMIT,
  type WebhookRunChangesV1,
} from '@trawl/contracts';

/** A page a run found changed or gone, as its task row says. */
export interface ChangedPage {
  seq: number;
  url: string;
  externalId: string | null;
  changeStatus: (typeof LISTED_CHANGE_STATUSES)[number];
}

/**
 * Bytes of URLs and external ids one run event may carry: a task URL may be 8 KiB, and the event
 * must stay one NATS message however long the hundred listed URLs are.
 */
export const CHANGED_PAGES_BYTES = 256 * 1024;

/**
 * The `changes` of a run's webhook event, from the verdicts its tasks recorded and the first
 * changed or removed pages in task order (read one more than `WEBHOOK_CHANGED_PAGES_LIMIT`, so a
 * longer list is known to be cut); `undefined` when no task of the run tracked changes.
 */
export function runChanges(counts: ReadonlyMap<ChangeStatus, number>, pages: readonly ChangedPage[]): WebhookRunChangesV1 | undefined {
  if (counts.size === 0) return undefined;
  const listed: WebhookRunChangesV1['pages'] = [];
  let bytes = 0;
  for (const page of pages.slice(0, WEBHOOK_CHANGED_PAGES_LIMIT)) {
    bytes += Buffer.byteLength(page.url) + Buffer.byteLength(page.externalId ?? '');
    if (bytes > CHANGED_PAGES_BYTES) break;
    listed.push({ task_id: String(page.seq), url: page.url, external_id: page.externalId, change_status: page.changeStatus });
  }
  const listable = LISTED_CHANGE_STATUSES.reduce((sum, status) => sum + (counts.get(status) ?? 0), 0);
  const tally = Object.fromEntries(CHANGE_STATUSES.map((status) => [status, counts.get(status) ?? 0])) as Record<ChangeStatus, number>;
  return { ...tally, pages: listed, pages_truncated: listed.length < listable };
}
