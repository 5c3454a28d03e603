import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { CrawlPageResultV1 } from '@trawl/contracts';
import { MessagingConnection, publishJson } from '@trawl/messaging';
import { waitFor } from '@trawl/testing';
import { DispatcherService } from '../src/frontier/dispatcher.service';
import { PageResultConsumer } from '../src/page-results/page-result.consumer';
import { CoordinatorHarness } from './support/coordinator-harness';
import { createCrawl, createTenant, pageResult, SITE } from './support/crawl-factories';

/** Longer than any test here waits: a page dispatched in time was not dispatched by the poll. */
const DISPATCH_POLL_MS = 120_000;

/**
 * The dispatch loop and the page-result consumer together, on a dispatch window of one page: how
 * fast the dispatcher learns that results made room.
 */
describe(`${DispatcherService.name} with the page-result consumer`, () => {
  let h: CoordinatorHarness;
  let messaging: MessagingConnection;
  let dispatcher: DispatcherService;
  let consumer: PageResultConsumer;

  beforeAll(async () => {
    h = await CoordinatorHarness.start({ dispatchWindow: 1, dispatchPollMs: DISPATCH_POLL_MS });
    messaging = await h.connectMessaging();
    dispatcher = h.dispatcher();
    consumer = new PageResultConsumer(h.results, dispatcher, h.metrics, messaging, h.settings, pino({ level: 'silent' }));
    await consumer.start();
  }, 60_000);

  afterAll(async () => {
    await consumer?.stop(5_000);
    await dispatcher?.stop(5_000);
    await h?.close();
  });

  async function publish(results: CrawlPageResultV1[]): Promise<void> {
    await publishJson(messaging.js, h.settings.topology.subjects.crawlPageResults, { v: 1, results }, { msgId: randomUUID() });
  }

  /** The URLs of the crawl's published page tasks, once there are `count` of them. */
  async function dispatchedUrls(crawlId: string, count: number, what: string): Promise<string[]> {
    return waitFor(
      async () => {
        const tasks = await h.publishedTasks(crawlId);
        return tasks.length >= count && tasks.map(({ task }) => task.url);
      },
      { timeoutMs: 15_000, what },
    );
  }

  describe('roomFreed', () => {
    it('dispatches the next page as soon as a result frees the full window, though the result found no new page', async () => {
      const crawl = await createCrawl(h.db, await createTenant(h.db));
      const [seed] = await h.claim(crawl.id, 1);
      await h.results.apply([pageResult(crawl.id, seed, { links: ['/a', '/b'] })]);

      dispatcher.start();
      await dispatchedUrls(crawl.id, 1, 'the first page dispatched');
      const [page] = await h.publishedTasks(crawl.id);

      // The window holds one page, so the other waits for it. Its answer links only to pages the crawl knows: no new work, only room.
      await publish([
        pageResult(
          crawl.id,
          {
            frontierId: page.task.frontier_id,
            attempt: page.task.attempt,
            url: page.task.url,
            depth: page.task.depth,
            wantsLinks: page.task.wants_links,
            wantsContent: page.task.wants_content,
          },
          { links: ['/a', '/b'] },
        ),
      ]);

      const urls = await dispatchedUrls(crawl.id, 2, 'the second page dispatched well before the next poll');
      expect(new Set(urls)).toEqual(new Set([`${SITE}/a`, `${SITE}/b`]));
    });
  });
});
