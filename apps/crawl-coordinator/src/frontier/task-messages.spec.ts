import { crawlPageTasksV1, crawlPageTaskV1, PAGES_HEADER, type CrawlPageTaskV1 } from '@trawl/contracts';
import type { ClaimedPage } from './frontier.repository';
import { pageTaskMessages } from './task-messages';

const SUBJECT = 'test.crawl.page.task.v1';

function claimed(frontierId: number): { page: ClaimedPage; task: CrawlPageTaskV1 } {
  const page: ClaimedPage = {
    frontierId,
    url: `https://site.test/p/${frontierId}`,
    depth: 1,
    attempt: 2,
    leaseUntilMs: 1_700_000_000_000 + frontierId,
    wantsLinks: true,
    wantsContent: false,
  };
  const task: CrawlPageTaskV1 = {
    v: 1,
    crawl_id: '5d0c2c8e-2b1f-4c55-8a0e-6f7d1b2c3d4e',
    tenant_id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d',
    frontier_id: frontierId,
    attempt: 2,
    url: page.url,
    depth: 1,
    wants_links: true,
    wants_content: false,
    scope_domain: 'site.test',
  };
  return { page, task };
}

describe(pageTaskMessages.name, () => {
  it('carries the pages in claim order, up to the size to a message, each message naming its pages and count', () => {
    const pages = [1, 2, 3, 4, 5].map(claimed);
    const messages = pageTaskMessages(pages, SUBJECT, 2);
    expect(messages.map((m) => ({ msgId: m.msgId, pages: m.headers?.[PAGES_HEADER] }))).toEqual([
      { msgId: `1:2:${1_700_000_000_001}+2`, pages: '2' },
      { msgId: `3:2:${1_700_000_000_003}+2`, pages: '2' },
      // A page left alone travels as pages always did, with a single task's id.
      { msgId: `5:2:${1_700_000_000_005}`, pages: undefined },
    ]);
    expect(messages.every((m) => m.subject === SUBJECT)).toBe(true);
    expect(crawlPageTasksV1.parse(messages[0].payload).tasks.map((t) => t.frontier_id)).toEqual([1, 2]);
    expect(crawlPageTasksV1.parse(messages[1].payload).tasks.map((t) => t.frontier_id)).toEqual([3, 4]);
    expect(crawlPageTaskV1.parse(messages[2].payload).frontier_id).toBe(5);
  });

  it('sends every page alone at size 1, as coordinators before grouping did', () => {
    const messages = pageTaskMessages([1, 2].map(claimed), SUBJECT, 1);
    expect(messages.map((m) => [m.msgId, crawlPageTaskV1.parse(m.payload).frontier_id])).toEqual([
      [`1:2:${1_700_000_000_001}`, 1],
      [`2:2:${1_700_000_000_002}`, 2],
    ]);
  });

  it('gives the same pages the same messages, so a round published again is deduplicated', () => {
    const pages = [7, 8, 9].map(claimed);
    expect(pageTaskMessages(pages, SUBJECT, 8)).toEqual(pageTaskMessages(pages, SUBJECT, 8));
  });
});
