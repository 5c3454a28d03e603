import { crawlPageTaskMsgId, crawlPageTasksMsgId, PAGES_HEADER, type CrawlPageTasksV1, type CrawlPageTaskV1 } from '@trawl/contracts';
import type { PublishItem } from '@trawl/messaging';
import type { ClaimedPage } from './frontier.repository';

/**
 * The messages a dispatch round publishes for one crawl's claimed pages, in claim order: up to
 * `pagesPerMessage` pages to a message (docs/decisions/crawl-api.md, "Page tasks travel together"),
 * a page left alone in the old single-task form. The same pages give the same messages and ids, so
 * a round published again after a NATS outage is deduplicated message by message.
 */
export function taskMessages(
  pages: readonly { page: ClaimedPage; task: CrawlPageTaskV1 }[],
  subject: string,
  pagesPerMessage: number,
): PublishItem[] {
  const messages: PublishItem[] = [];
  const size = Math.max(1, Math.floor(pagesPerMessage));
  for (let at = 0; at < pages.length; at += size) {
    const group = pages.slice(at, at + size);
    const [{ page: first, task }] = group;
    if (group.length === 1) {
      messages.push({ subject, payload: task, msgId: crawlPageTaskMsgId(first.frontierId, first.attempt, first.leaseUntilMs) });
      continue;
    }
    const payload: CrawlPageTasksV1 = { v: 1, tasks: group.map((entry) => entry.task) };
    messages.push({
      subject,
      payload,
      msgId: crawlPageTasksMsgId(first, group.length),
      headers: { [PAGES_HEADER]: String(group.length) },
    });
  }
  return messages;
}
