import { PageResultService } from '../src/page-results/page-result.service';
import { ClaimedPage } from '../src/frontier/frontier.repository';
import { CoordinatorHarness } from './support/coordinator-harness';
import {
  createCrawl,
  createTenant,
  CrawlOptions,
  frontierRow,
  pageResult,
  readBilling,
  readCrawl,
  readFrontier,
  readItems,
  ResultOptions,
  SITE,
  stopCrawl,
  TestCrawl,
} from './support/crawl-factories';

let h: CoordinatorHarness;

beforeAll(async () => {
  h = await CoordinatorHarness.start();
});

afterAll(async () => {
  await h?.close();
});

async function startCrawl(options: CrawlOptions = {}): Promise<TestCrawl> {
  const tenantId = await createTenant(h.db);
  return createCrawl(h.db, tenantId, options);
}

/** Dispatches the start URL and applies the worker's answer with these links. */
async function openSeed(crawl: TestCrawl, links: string[], options: ResultOptions = {}): Promise<ClaimedPage> {
  const [seed] = await h.claim(crawl.id, 1);
  expect(seed.frontierId).toBe(crawl.seedId);
  await h.results.apply([pageResult(crawl.id, seed, { ...options, links })]);
  return seed;
}

/** The claimed page for this URL path among `pages`. */
function pageAt(pages: ClaimedPage[], path: string): ClaimedPage {
  const page = pages.find((p) => p.url === `${SITE}${path}`);
  if (!page) throw new Error(`${path} was not claimed; claimed: ${pages.map((p) => p.url).join(', ')}`);
  return page;
}

/** Everything a user (and their bill) can see of a crawl. */
async function snapshot(crawl: TestCrawl) {
  const [contents] = await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM crawl_contents WHERE crawl_id = $1`, [crawl.id]);
  return {
    crawl: await readCrawl(h.db, crawl.id),
    frontier: await readFrontier(h.db, crawl.id),
    billing: await readBilling(h.db, crawl.tenantId),
    contents: contents.n,
  };
}

describe(PageResultService.name, () => {
  describe('apply', () => {
    it('changes nothing when the same page result is applied again after it committed', async () => {
      const crawl = await startCrawl({ outputFormat: 'html' });
      await openSeed(crawl, ['/a', '/b']);
      const [a] = await h.claim(crawl.id, 1);
      const result = pageResult(crawl.id, a, { links: ['/c', '/b/', '/d'], duplicateLinks: 1 });

      const first = await h.results.apply([result]);
      const afterFirst = await snapshot(crawl);
      // A coordinator that crashed before acknowledging gets the same message again.
      const again = await h.results.apply([result]);

      expect(first).toMatchObject({ applied: 1, stale: 0 });
      expect(again).toEqual({ applied: 0, stale: 1, crawlsWithNewWork: [], crawlsEnded: [], contentFailures: [] });
      expect(await snapshot(crawl)).toEqual(afterFirst);
      expect(afterFirst.crawl).toMatchObject({ pagesFetched: 2, itemsFound: 4, duplicatesRemoved: 2 });
      expect(afterFirst.billing.creditsUsed).toBe(2);
      // The operator's counters agree with the ledger: the repeated result counted nothing.
      const credits = await h.registry.getSingleMetric('trawl_tenant_credits_total')?.get();
      expect(credits?.values.filter((v) => v.labels.tenant_id === crawl.tenantId).map((v) => v.value)).toEqual([2]);
      expect(afterFirst.contents).toBe(1);
    });

    it('applies a result delivered twice in one batch once', async () => {
      const crawl = await startCrawl();
      const [seed] = await h.claim(crawl.id, 1);
      const result = pageResult(crawl.id, seed, { links: ['/a', '/b'] });

      const outcome = await h.results.apply([result, { ...result }]);

      expect(outcome).toEqual({ applied: 1, stale: 1, crawlsWithNewWork: [crawl.id], crawlsEnded: [], contentFailures: [] });
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ pagesFetched: 1, itemsFound: 2, duplicatesRemoved: 0 });
      expect((await readBilling(h.db, crawl.tenantId)).ledger).toHaveLength(1);
    });

    it('keeps max_items exact when results of one crawl are applied by concurrent transactions', async () => {
      const crawl = await startCrawl({ maxItems: 50 });
      const pagePaths = Array.from({ length: 8 }, (_, i) => `/p${i}`);
      await openSeed(crawl, pagePaths);
      const pages = await h.claim(crawl.id, 8);
      expect(pages).toHaveLength(8);

      // 8 × 10 fresh links, disjoint, for the 42 items left: several transactions must overflow.
      const outcomes = await Promise.all(
        pages.map((page, i) =>
          h.results.apply([pageResult(crawl.id, page, { links: Array.from({ length: 10 }, (_, j) => `/p${i}/item${j}`) })]),
        ),
      );

      expect(outcomes.reduce((sum, o) => sum + o.applied, 0)).toBe(8);
      const items = await readItems(h.db, crawl.id);
      expect(items.map((i) => i.itemSeq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      expect(new Set(items.map((i) => i.url)).size).toBe(50);
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({
        status: 'completed',
        stopReason: 'max_items',
        itemsFound: 50,
        pagesFetched: 9,
      });
    });

    it('counts links differing only by scheme, www. or trailing slash, or already met, as duplicates', async () => {
      const crawl = await startCrawl();
      await openSeed(crawl, ['/a', 'http://site.test/a', 'https://www.site.test/a', '/a/', '/', 'https://www.site.test/', '/b'], {
        duplicateLinks: 2,
      });

      // 3 variants of /a, the start URL twice, 2 repeats on the page itself.
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ itemsFound: 2, duplicatesRemoved: 7 });

      const [a] = await h.claim(crawl.id, 1);
      await h.results.apply([pageResult(crawl.id, a, { links: ['/b/', 'http://www.site.test/b', '/c', 'http://site.test/a'] })]);

      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ itemsFound: 3, duplicatesRemoved: 10 });
      expect((await readItems(h.db, crawl.id)).map((i) => i.url)).toEqual([`${SITE}/a`, `${SITE}/b`, `${SITE}/c`]);
      expect(await readFrontier(h.db, crawl.id)).toHaveLength(4);
    });

    it('drops links outside the patterns and keeps links at the depth limit without opening them', async () => {
      const crawl = await startCrawl({ depth: 1, includePatterns: ['/products'], excludePatterns: ['/products/old'] });
      await openSeed(crawl, ['/products/a', '/products/old/x', '/about', '/products/b']);

      const frontier = await readFrontier(h.db, crawl.id);
      expect(frontier.map((r) => r.url)).toEqual([`${SITE}/`, `${SITE}/products/a`, `${SITE}/products/b`]);
      expect(frontier.slice(1)).toEqual([
        expect.objectContaining({ depth: 1, itemSeq: 1, state: 'done', wantsLinks: false, wantsContent: false }),
        expect.objectContaining({ depth: 1, itemSeq: 2, state: 'done', wantsLinks: false, wantsContent: false }),
      ]);
      // Nothing is left to open: the crawl is over, with what it kept.
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({
        status: 'completed',
        stopReason: null,
        itemsFound: 2,
        duplicatesRemoved: 0,
        pagesFetched: 1,
      });
    });

    it('queues kept pages at the depth limit for their HTML only, and drops links beyond the limit', async () => {
      const crawl = await startCrawl({ depth: 1, outputFormat: 'html' });
      await openSeed(crawl, ['/a']);
      expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({
        depth: 1,
        state: 'queued',
        wantsLinks: false,
        wantsContent: true,
        contentStatus: 'pending',
      });

      const [a] = await h.claim(crawl.id, 1);
      expect(a).toMatchObject({ wantsLinks: false, wantsContent: true });
      // Even if a worker sends links for it, the page is at the limit: its links would be at depth 2.
      await h.results.apply([pageResult(crawl.id, a, { override: { opened: true, links: [`${SITE}/deeper`] } })]);

      expect((await readFrontier(h.db, crawl.id)).map((r) => r.url)).toEqual([`${SITE}/`, `${SITE}/a`]);
      expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'done', contentStatus: 'fetched' });
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ status: 'completed', stopReason: null, itemsFound: 1, pagesFetched: 2 });
    });

    it('fails the crawl with seed_unreachable when the start URL fails to load', async () => {
      const crawl = await startCrawl();
      const [seed] = await h.claim(crawl.id, 1);

      await h.results.apply([pageResult(crawl.id, seed, { outcome: 'failed' })]);

      expect(await readCrawl(h.db, crawl.id)).toMatchObject({
        status: 'failed',
        errorCode: 'seed_unreachable',
        stopReason: null,
        pagesFetched: 1,
        pagesFailed: 1,
        finished: true,
      });
    });

    it('fails the crawl with no_items_found when it opened everything and kept nothing', async () => {
      const crawl = await startCrawl({ includePatterns: ['/blog'] });

      await openSeed(crawl, ['/about', '/contact']);

      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ status: 'failed', errorCode: 'no_items_found', itemsFound: 0 });
    });

    it('completes the crawl without a stop_reason when nothing is left to open', async () => {
      const crawl = await startCrawl();
      await openSeed(crawl, ['/a', '/b']);
      const pages = await h.claim(crawl.id);

      await h.results.apply([pageResult(crawl.id, pageAt(pages, '/a'), { links: ['/b'] })]);
      expect((await readCrawl(h.db, crawl.id)).status).toBe('running');
      await h.results.apply([pageResult(crawl.id, pageAt(pages, '/b'), { links: ['/a', '/'] })]);

      expect(await readCrawl(h.db, crawl.id)).toMatchObject({
        status: 'completed',
        stopReason: null,
        errorCode: null,
        itemsFound: 2,
        pagesFetched: 3,
        finished: true,
      });
    });

    it('drops a page the worker skipped because the crawl stopped, without counting or billing it', async () => {
      const crawl = await startCrawl();
      await openSeed(crawl, ['/a', '/b']);
      const pages = await h.claim(crawl.id);
      await stopCrawl(h.db, crawl.id);

      await h.results.apply([
        pageResult(crawl.id, pageAt(pages, '/a'), { outcome: 'skipped' }),
        // In flight when the stop came: it finishes, is billed, and its links still count (post-stop window).
        pageResult(crawl.id, pageAt(pages, '/b'), { links: ['/c'] }),
      ]);

      expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'dropped' });
      // Kept after the stop, never opened: no new page is fetched after a stop.
      expect(await frontierRow(h.db, crawl.id, '/c')).toMatchObject({ state: 'done', itemSeq: 3 });
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ status: 'stopped', stopReason: 'user', pagesFetched: 2, itemsFound: 3 });
      expect((await readBilling(h.db, crawl.tenantId)).ledger.map((l) => l.ref)).toEqual([
        `crawl:${crawl.id}:${crawl.seedId}:1`,
        `crawl:${crawl.id}:${pageAt(pages, '/b').frontierId}:1`,
      ]);
    });

    it('bills fetched and 404 pages once each under their claim, and failed pages not at all', async () => {
      const crawl = await startCrawl();
      await openSeed(crawl, ['/a', '/missing', '/down']);
      const pages = await h.claim(crawl.id);

      await h.results.apply([
        pageResult(crawl.id, pageAt(pages, '/a'), { credits: 5, tier: 'js_render' }),
        pageResult(crawl.id, pageAt(pages, '/missing'), { outcome: 'failed_billed' }),
        pageResult(crawl.id, pageAt(pages, '/down'), { outcome: 'failed' }),
      ]);

      const billing = await readBilling(h.db, crawl.tenantId);
      expect(billing.ledger).toEqual([
        { ref: `crawl:${crawl.id}:${crawl.seedId}:1`, credits: 1, product: 'crawl_page', tier: 'basic' },
        { ref: `crawl:${crawl.id}:${pageAt(pages, '/a').frontierId}:1`, credits: 5, product: 'crawl_page', tier: 'js_render' },
        { ref: `crawl:${crawl.id}:${pageAt(pages, '/missing').frontierId}:1`, credits: 1, product: 'crawl_page', tier: 'basic' },
      ]);
      expect(billing.creditsUsed).toBe(7);
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ status: 'completed', pagesFetched: 4, pagesFailed: 2 });
    });

    describe('with output_format, kept pages that will never be fetched', () => {
      it('turns the content of kept pages not fetched when max_pages ends the crawl failed, and completes at once', async () => {
        const crawl = await startCrawl({ outputFormat: 'html', maxItems: 10, maxPages: 2 });
        await openSeed(crawl, ['/a', '/b', '/c']);
        const [a] = await h.claim(crawl.id);

        await h.results.apply([pageResult(crawl.id, a, { links: ['/d'] })]);

        expect(await readCrawl(h.db, crawl.id)).toMatchObject({
          status: 'completed',
          stopReason: 'max_pages',
          itemsFound: 4,
          pagesFetched: 2,
        });
        const kept = (await readFrontier(h.db, crawl.id)).filter((r) => r.itemSeq !== null);
        expect(kept.map((r) => [r.url, r.contentStatus])).toEqual([
          [`${SITE}/a`, 'fetched'],
          [`${SITE}/b`, 'failed'],
          [`${SITE}/c`, 'failed'],
          [`${SITE}/d`, 'failed'],
        ]);
        // Nothing was fetched for them, so nothing is billed or counted as a failed page.
        expect(await readCrawl(h.db, crawl.id)).toMatchObject({ pagesFailed: 0 });
        expect((await readBilling(h.db, crawl.tenantId)).ledger).toHaveLength(2);
      });

      it('turns the content of kept pages failed when the crawl fails, leaving pages in flight to their answer', async () => {
        const crawl = await startCrawl({ outputFormat: 'html' });
        await openSeed(crawl, ['/a', '/b']);
        const [a] = await h.claim(crawl.id, 1);

        await h.results.failCrawl(crawl.id, 'The crawl stopped on a service-side failure.');

        expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'dispatched', contentStatus: 'pending' });
        expect(await frontierRow(h.db, crawl.id, '/b')).toMatchObject({ state: 'queued', contentStatus: 'failed' });
        await h.results.apply([pageResult(crawl.id, a)]);
        expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'done', contentStatus: 'fetched' });
      });

      it('turns the content of a page skipped after a stop failed, and leaves a page kept after the stop pending (spec §3)', async () => {
        const crawl = await startCrawl({ outputFormat: 'html' });
        await openSeed(crawl, ['/a', '/b']);
        const pages = await h.claim(crawl.id);
        await stopCrawl(h.db, crawl.id);

        await h.results.apply([
          pageResult(crawl.id, pageAt(pages, '/a'), { outcome: 'skipped' }),
          pageResult(crawl.id, pageAt(pages, '/b'), { links: ['/c'] }),
        ]);

        expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'dropped', contentStatus: 'failed' });
        expect(await frontierRow(h.db, crawl.id, '/b')).toMatchObject({ state: 'done', contentStatus: 'fetched' });
        // "After a stop, a URL kept after the stop reads `pending` and stays so" (spec §3, word for word).
        expect(await frontierRow(h.db, crawl.id, '/c')).toMatchObject({ state: 'done', itemSeq: 3, contentStatus: 'pending' });
      });
    });

    describe('with output_format, a kept page met again nearer the start (spec §8 rule 4)', () => {
      /**
       * depth 3: start → /a, /c (depth 1); /a → /b (depth 2); /b → /x (depth 3: kept for its HTML only).
       * /c answers late and links /x too, at depth 2: /x must now be opened.
       */
      async function crawlUntilXIsClaimedForHtml() {
        const crawl = await startCrawl({ depth: 3, outputFormat: 'html' });
        await openSeed(crawl, ['/a', '/c']);
        const depth1 = await h.claim(crawl.id);
        await h.results.apply([pageResult(crawl.id, pageAt(depth1, '/a'), { links: ['/b'] })]);
        const [b] = await h.claim(crawl.id);
        await h.results.apply([pageResult(crawl.id, b, { links: ['/x'] })]);
        expect(await frontierRow(h.db, crawl.id, '/x')).toMatchObject({ depth: 3, wantsLinks: false, state: 'queued' });
        const [x] = await h.claim(crawl.id);
        expect(x).toMatchObject({ url: `${SITE}/x`, wantsLinks: false, wantsContent: true, attempt: 1 });
        return { crawl, c: pageAt(depth1, '/c'), x };
      }

      it('queues a page fetched for its HTML only again, for its links, and bills it twice', async () => {
        const { crawl, c, x } = await crawlUntilXIsClaimedForHtml();
        await h.results.apply([pageResult(crawl.id, x)]);
        expect(await frontierRow(h.db, crawl.id, '/x')).toMatchObject({ state: 'done', contentStatus: 'fetched' });

        const outcome = await h.results.apply([pageResult(crawl.id, c, { links: ['/x'] })]);

        expect(outcome.crawlsWithNewWork).toEqual([crawl.id]);
        expect(await frontierRow(h.db, crawl.id, '/x')).toMatchObject({ depth: 2, wantsLinks: true, state: 'queued' });
        const [again] = await h.claim(crawl.id);
        expect(again).toMatchObject({ frontierId: x.frontierId, attempt: 2, wantsLinks: true, depth: 2 });
        await h.results.apply([pageResult(crawl.id, again, { links: ['/y'] })]);

        expect(await frontierRow(h.db, crawl.id, '/y')).toMatchObject({ depth: 3, wantsLinks: false, state: 'queued' });
        const refs = (await readBilling(h.db, crawl.tenantId)).ledger.map((l) => l.ref);
        expect(refs).toEqual(expect.arrayContaining([`crawl:${crawl.id}:${x.frontierId}:1`, `crawl:${crawl.id}:${x.frontierId}:2`]));
        // /x is one result, however often it was met.
        expect((await readItems(h.db, crawl.id)).filter((i) => i.url === `${SITE}/x`)).toHaveLength(1);
      });

      it('queues again a page whose HTML-only answer arrives after it was met nearer the start', async () => {
        const { crawl, c, x } = await crawlUntilXIsClaimedForHtml();
        await h.results.apply([pageResult(crawl.id, c, { links: ['/x'] })]);
        expect(await frontierRow(h.db, crawl.id, '/x')).toMatchObject({ depth: 2, wantsLinks: true, state: 'dispatched' });

        // The worker fetched /x for its HTML only (the task said wants_links: false).
        const outcome = await h.results.apply([pageResult(crawl.id, x)]);

        expect(outcome.crawlsWithNewWork).toEqual([crawl.id]);
        expect(await frontierRow(h.db, crawl.id, '/x')).toMatchObject({ state: 'queued', contentStatus: 'fetched' });
        const [again] = await h.claim(crawl.id);
        expect(again).toMatchObject({ frontierId: x.frontierId, attempt: 2, wantsLinks: true });
      });
    });
  });
});
