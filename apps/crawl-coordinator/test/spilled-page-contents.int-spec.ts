import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { crawlContentSpillStem, CrawlPageResultV1 } from '@trawl/contracts';
import { MessagingConnection, publishJson, SpilledBodies } from '@trawl/messaging';
import { waitFor } from '@trawl/testing';
import { ClaimedPage } from '../src/frontier/frontier.repository';
import { PageResultConsumer } from '../src/page-results/page-result.consumer';
import { SPILLED_BYTES_PER_APPLY } from '../src/page-results/spilled-contents';
import { CoordinatorHarness } from './support/coordinator-harness';
import {
  createCrawl,
  createTenant,
  frontierRow,
  pageResult,
  readBilling,
  readCrawl,
  readFrontier,
  TestCrawl,
} from './support/crawl-factories';

/**
 * Kept pages' HTML that workers spilled beside their results (`content_ref`), through the real
 * page-result consumer: results published to JetStream, chunks in the crawl bodies stream.
 */
describe(`${PageResultConsumer.name} with spilled page HTML`, () => {
  let h: CoordinatorHarness;
  let messaging: MessagingConnection;
  let consumer: PageResultConsumer;
  let bodies: SpilledBodies;
  const logged: { level: number; msg: string; reason?: string; frontier_id?: number }[] = [];

  beforeAll(async () => {
    h = await CoordinatorHarness.start();
    messaging = await h.connectMessaging();
    const logger = pino({ level: 'debug' }, { write: (line: string) => logged.push(JSON.parse(line)) });
    consumer = new PageResultConsumer(h.results, h.dispatcher(), h.metrics, messaging, h.settings, logger);
    await consumer.start();
    bodies = new SpilledBodies({ messaging, stream: h.settings.topology.streams.crawlBodies });
  }, 60_000);

  afterAll(async () => {
    await consumer?.stop(5_000);
    await h?.close();
  });

  /** A crawl keeping HTML whose start page linked `paths`, claimed and dispatched now. */
  async function keptPages(paths: string[]): Promise<{ crawl: TestCrawl; pages: ClaimedPage[] }> {
    const crawl = await createCrawl(h.db, await createTenant(h.db), { outputFormat: 'html' });
    const [seed] = await h.claim(crawl.id, 1);
    await h.results.apply([pageResult(crawl.id, seed, { links: paths })]);
    const pages = await h.claim(crawl.id, paths.length);
    return { crawl, pages };
  }

  /** The worker's answer for `page` with its HTML spilled under its own spill id. */
  async function spilled(crawl: TestCrawl, page: ClaimedPage, html: string): Promise<CrawlPageResultV1> {
    const { content: _inline, ...result } = pageResult(crawl.id, page);
    const id = randomUUID().slice(0, 8);
    const ref = await bodies.spill(crawlContentSpillStem(h.settings.topology, result, id), html);
    return { ...result, content_ref: { ...ref, id } };
  }

  async function publish(results: CrawlPageResultV1[]): Promise<void> {
    await publishJson(messaging.js, h.settings.topology.subjects.crawlPageResults, { v: 1, results }, { msgId: randomUUID() });
  }

  /** Every published result message was handled and acknowledged (none waits for a redelivery). */
  async function settled(): Promise<void> {
    const { stream, durable } = {
      stream: h.settings.topology.streams.crawlResults,
      durable: h.settings.topology.consumers.crawlCoordinators,
    };
    await waitFor(
      async () => {
        const info = await messaging.jsm.consumers.info(stream, durable);
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      { timeoutMs: 20_000, what: 'every page result acknowledged' },
    );
  }

  async function keptHtml(frontierId: number): Promise<string | undefined> {
    const [row] = await h.db.query<{ html: string }>(`SELECT html FROM crawl_contents WHERE frontier_id = $1`, [frontierId]);
    return row?.html;
  }

  async function chunksLeft(): Promise<number> {
    return (await messaging.jsm.streams.info(h.settings.topology.streams.crawlBodies)).state.messages;
  }

  const pageHtml = (n: number, mib: number) =>
    `<html><body>${`<p>page ${n}: "café" \\ € 😀\t</p>\n`.repeat(Math.ceil((mib * 1024 * 1024) / 40))}</body></html>`;

  it('stores spilled HTML whole, purges its chunks after the commit, and changes nothing when the result comes again', async () => {
    const { crawl, pages } = await keptPages(['/big']);
    const html = pageHtml(1, 3);
    const result = await spilled(crawl, pages[0], html);
    await publish([result]);
    await waitFor(async () => (await frontierRow(h.db, crawl.id, '/big')).contentStatus === 'fetched', {
      timeoutMs: 20_000,
      what: 'the content kept',
    });
    expect(await keptHtml(pages[0].frontierId)).toBe(html);
    await waitFor(async () => (await chunksLeft()) === 0, { timeoutMs: 10_000, what: 'the chunks purged' });

    const before = {
      crawl: await readCrawl(h.db, crawl.id),
      frontier: await readFrontier(h.db, crawl.id),
      billing: await readBilling(h.db, crawl.tenantId),
    };
    // The same answer again (a redelivery after a lost ack): its chunks are gone, its claim is settled.
    await publish([result]);
    await settled();
    expect({
      crawl: await readCrawl(h.db, crawl.id),
      frontier: await readFrontier(h.db, crawl.id),
      billing: await readBilling(h.db, crawl.tenantId),
    }).toEqual(before);
    expect(await keptHtml(pages[0].frontierId)).toBe(html);
    expect(logged.filter((l) => l.level >= 40 && l.frontier_id === pages[0].frontierId)).toEqual([]);
  }, 60_000);

  it('applies a message whose spilled HTML weighs more than SPILLED_BYTES_PER_APPLY in several transactions, every page whole', async () => {
    const { crawl, pages } = await keptPages(['/p1', '/p2', '/p3']);
    const htmls = pages.map((_, i) => pageHtml(i, 7));
    const results = await Promise.all(pages.map((page, i) => spilled(crawl, page, htmls[i])));
    const applied = jest.spyOn(h.results, 'apply');
    try {
      await publish(results);
      await settled();
      const heldPerApply = applied.mock.calls.map(([batch]) => batch.reduce((sum, r) => sum + Buffer.byteLength(r.content ?? ''), 0));
      expect(heldPerApply.length).toBeGreaterThanOrEqual(2);
      for (const held of heldPerApply) expect(held).toBeLessThanOrEqual(SPILLED_BYTES_PER_APPLY);
    } finally {
      applied.mockRestore();
    }
    for (const [i, page] of pages.entries()) expect(await keptHtml(page.frontierId)).toBe(htmls[i]);
    expect(await chunksLeft()).toBe(0);
  }, 60_000);

  it('ends the content failed with a logged reason when the spilled HTML is gone, and acknowledges the result', async () => {
    const { crawl, pages } = await keptPages(['/expired']);
    const { content: _inline, ...result } = pageResult(crawl.id, pages[0]);
    // Chunks that were never stored, as after the stream's max age removed them.
    await publish([{ ...result, content_ref: { chunks: 2, bytes: 700_000, id: 'expired' } }]);
    await settled();
    expect(await frontierRow(h.db, crawl.id, '/expired')).toMatchObject({ state: 'done', contentStatus: 'failed' });
    expect(await keptHtml(pages[0].frontierId)).toBeUndefined();
    expect(logged.filter((l) => l.frontier_id === pages[0].frontierId)).toEqual([
      expect.objectContaining({ level: 40, reason: 'spilled_content_lost', msg: expect.stringContaining('content failed') }),
    ]);
    const info = await messaging.jsm.consumers.info(
      h.settings.topology.streams.crawlResults,
      h.settings.topology.consumers.crawlCoordinators,
    );
    expect(info.num_redelivered).toBe(0);
  }, 60_000);
});
