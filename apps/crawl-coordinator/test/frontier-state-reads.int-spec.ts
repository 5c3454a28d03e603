import { frontierHasPageIn } from '@trawl/persistence';
import { pagesReadBy } from '@trawl/testing';
import { CoordinatorHarness } from './support/coordinator-harness';
import { createCrawl, createTenant } from './support/crawl-factories';

/** Pages that went through the queue and the window before the newest ones (each leaves a dead index entry in both). */
const PAGES_DONE = 20_000;

/**
 * How the coordinator asks whether a crawl has pages queued or in flight, which it does on every
 * page result and every dispatch pass: at a constant cost however many pages already left those
 * states (their index entries stay until vacuum removes them).
 */
describe('frontierHasPageIn', () => {
  let h: CoordinatorHarness;

  beforeAll(async () => {
    h = await CoordinatorHarness.start();
  }, 60_000);
  afterAll(() => h?.close());

  /** A crawl whose first `done` pages were queued, dispatched and done, and the next ones queued (and some of those dispatched). */
  async function crawlWithHistory(done: number, queued: number, dispatched: number): Promise<string> {
    const crawl = await createCrawl(h.db, await createTenant(h.db));
    await h.db.query(
      `INSERT INTO crawl_frontier (crawl_id, url_key, url, depth, state, wants_links, wants_content)
       SELECT $1, decode(md5(i::text), 'hex'), 'https://site.test/p/' || i, 1, 'queued', true, false
       FROM generate_series(1, $2::int) AS i`,
      [crawl.id, done + queued],
    );
    const ids = `SELECT id FROM crawl_frontier WHERE crawl_id = $1 AND url LIKE 'https://site.test/p/%' ORDER BY id`;
    await h.db.query(
      `UPDATE crawl_frontier SET state = 'dispatched', lease_until = now() + interval '30 s' WHERE id IN (${ids} LIMIT $2)`,
      [crawl.id, done + dispatched],
    );
    await h.db.query(`UPDATE crawl_frontier SET state = 'done', lease_until = NULL WHERE id IN (${ids} LIMIT $2)`, [crawl.id, done]);
    await h.db.query(`UPDATE crawl_frontier SET state = 'done' WHERE id = $1`, [crawl.seedId]);
    return crawl.id;
  }

  /** What the fragments answer for the crawl, and the index and table pages the statement read. */
  async function ask(crawlId: string): Promise<{ queued: boolean; dispatched: boolean; pagesRead: number }> {
    const select = `SELECT ${frontierHasPageIn('queued', `'${crawlId}'::uuid`)} AS queued,
                           ${frontierHasPageIn('dispatched', `'${crawlId}'::uuid`)} AS dispatched`;
    const [answer] = await h.db.query<{ queued: boolean; dispatched: boolean }>(select);
    return { ...answer, pagesRead: await pagesReadBy(h.db, select) };
  }

  it('reads a few pages however many pages already left the queue and the window', async () => {
    const crawlId = await crawlWithHistory(PAGES_DONE, 50, 10);
    const { queued, dispatched, pagesRead } = await ask(crawlId);
    expect({ queued, dispatched }).toEqual({ queued: true, dispatched: true });
    // The dead entries of 20,000 pages fill ~100 index pages in each index; the newest end holds live ones.
    expect(pagesRead).toBeLessThanOrEqual(12);
  });

  it('answers false for states no page of the crawl is in', async () => {
    const crawlId = await crawlWithHistory(100, 0, 0);
    expect(await ask(crawlId)).toMatchObject({ queued: false, dispatched: false });
  });
});
