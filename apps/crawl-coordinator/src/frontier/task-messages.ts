import { crawlPageTaskMsgId, taskMessages, type CrawlPageTaskV1, type TaskMessage } from '@trawl/contracts';
import type { ClaimedPage } from './frontier.repository';

/**
 * The messages a dispatch round publishes for one crawl's claimed pages, in claim order: up to
 * `pagesPerMessage` pages to a message (docs/decisions/crawl-api.md, "Page tasks travel together"),
 * a page left alone in the old single-task form, each named by its claim.
 */
export function pageTaskMessages(
  pages: readonly { page: ClaimedPage; task: CrawlPageTaskV1 }[],
  subject: string,
  pagesPerMessage: number,
): TaskMessage[] {
  return taskMessages(pages, subject, pagesPerMessage, {
    task: (entry) => entry.task,
    msgId: ({ page }) => crawlPageTaskMsgId(page.frontierId, page.attempt, page.leaseUntilMs),
  });
}
