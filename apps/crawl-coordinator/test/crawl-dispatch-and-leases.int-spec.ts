import { createDataSource, Database } from '@trawl/persistence';
import { CommitReplyCutter } from '@trawl/testing';
import { ReconcilerService } from '../src/crawl-lifecycle/reconciler.service';
import { DispatcherService } from '../src/frontier/dispatcher.service';
import { ClaimedPage } from '../src/frontier/frontier.repository';
import { PageResultService } from '../src/page-results/page-result.service';
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
  SITE,
  stopCrawl,
  TenantOptions,
  TestCrawl,
} from './support/crawl-factories';

const MAX_ATTEMPTS = 2;

let h: CoordinatorHarness;

beforeAll(async () => {
  h = await CoordinatorHarness.start({ maxAttempts: MAX_ATTEMPTS, dispatchPerCrawl: 100 });
  await h.connectMessaging();
});

afterAll(async () => {
  await h?.close();
});

async function startCrawl(options: CrawlOptions = {}, tenant: TenantOptions = {}): Promise<TestCrawl> {
  return createCrawl(h.db, await createTenant(h.db, tenant), options);
}

/** Dispatches the start URL and applies the worker's answer with these links. */
async function openSeed(crawl: TestCrawl, links: string[]): Promise<void> {
  const [seed] = await h.claim(crawl.id, 1);
  await h.results.apply([pageResult(crawl.id, seed, { links })]);
}

/** The page's claim runs out unanswered (its worker died, its task was lost) and the reconciler runs. */
async function loseClaim(reconciler: ReconcilerService, page: Pick<ClaimedPage, 'frontierId'>): Promise<void> {
  await h.expireLeases([page.frontierId]);
  await reconciler.reconcileOnce();
}

async function claimOne(crawl: TestCrawl, path: string): Promise<ClaimedPage> {
  const [page] = await h.claim(crawl.id, 1);
  expect(page?.url).toBe(`${SITE}${path}`);
  return page;
}

/** The page tasks published for the crawl, as the claims a worker answers. */
async function tasksOf(crawl: TestCrawl): Promise<Omit<ClaimedPage, 'leaseUntilMs'>[]> {
  return (await h.publishedTasks(crawl.id)).map(({ task }) => ({
    frontierId: task.frontier_id,
    attempt: task.attempt,
    url: task.url,
    depth: task.depth,
    wantsLinks: task.wants_links,
    wantsContent: task.wants_content,
  }));
}

describe(DispatcherService.name, () => {
  describe('dispatchRound', () => {
    it('publishes one task per claimed page, identified by frontier id and attempt', async () => {
      const crawl = await startCrawl({ outputFormat: 'html' });

      await h.dispatcher().dispatchRound();

      expect(await h.publishedTasks(crawl.id)).toEqual([
        {
          msgId: expect.stringMatching(new RegExp(`^${crawl.seedId}:1:\\d+$`)),
          pages: 1,
          task: expect.objectContaining({
            crawl_id: crawl.id,
            tenant_id: crawl.tenantId,
            frontier_id: crawl.seedId,
            attempt: 1,
            url: `${SITE}/`,
            depth: 0,
            wants_links: true,
            wants_content: false,
            scope_domain: 'site.test',
            auto_tiers: ['basic', 'js_render', 'premium', 'premium_js_render'],
          }),
        },
      ]);
      expect(await frontierRow(h.db, crawl.id, '/')).toMatchObject({ state: 'dispatched', attempt: 1 });
      expect((await readCrawl(h.db, crawl.id)).pagesDispatched).toBe(1);
    });

    it('publishes the pages of a claim whose COMMIT lost its answer; a claim that did not commit does not shadow the next', async () => {
      const cutter = await CommitReplyCutter.start(h.databaseUrl);
      const relayed = new Database(await createDataSource({ url: cutter.urlFor(h.databaseUrl), poolSize: 2 }).initialize());
      try {
        const crawl = await startCrawl();
        cutter.cutNextCommitReplies(1);
        // Postgres committed the claim, the dispatcher never heard: without publishing, the page
        // would sit dispatched until its lease ran out.
        expect(await h.dispatcher(relayed).dispatchRound()).toBe(1);
        expect(cutter.cut).toBe(1);
        expect(await frontierRow(h.db, crawl.id, '/')).toMatchObject({ state: 'dispatched', attempt: 1 });
        expect((await tasksOf(crawl)).map((t) => t.attempt)).toEqual([1]);

        // Had the crash lost the claim instead, the page is queued again at attempt 0; its next
        // claim (attempt 1 again) is published, not dropped as a repeat of the first.
        await h.db.query(`UPDATE crawl_frontier SET state = 'queued', attempt = 0, lease_until = NULL WHERE crawl_id = $1`, [crawl.id]);
        await h.db.query(`UPDATE crawls SET pages_dispatched = 0 WHERE id = $1`, [crawl.id]);
        expect(await h.dispatcher().dispatchRound()).toBe(1);
        expect((await tasksOf(crawl)).map((t) => t.attempt)).toEqual([1, 1]);
      } finally {
        await relayed.dataSource.destroy();
        await cutter.close();
      }
    });

    it("sends each page as a Fetch request in adaptive mode limited to the tiers of the tenant's plan", async () => {
      const withoutPremium = await startCrawl({}, { planFeatures: ['js_render'] });
      const basicOnly = await startCrawl({}, { planFeatures: [] });
      await h.dispatcher().dispatchRound();
      expect((await h.publishedTasks(withoutPremium.id)).map(({ task }) => task.auto_tiers)).toEqual([['basic', 'js_render']]);
      expect((await h.publishedTasks(basicOnly.id)).map(({ task }) => task.auto_tiers)).toEqual([['basic']]);
    });

    it('dispatches no more pages than max_pages, even when rounds of two coordinators race', async () => {
      const crawl = await startCrawl({ maxPages: 4 });
      await h.dispatcher().dispatchRound();
      const [seed] = await tasksOf(crawl);
      await h.results.apply([pageResult(crawl.id, seed, { links: Array.from({ length: 10 }, (_, i) => `/p${i}`) })]);

      // Each round could take 100 pages of this crawl; its budget is 3.
      await Promise.all([h.dispatcher().dispatchRound(), h.dispatcher().dispatchRound()]);
      await h.dispatcher().dispatchRound();

      const tasks = await tasksOf(crawl);
      expect(tasks).toHaveLength(4);
      expect((await readCrawl(h.db, crawl.id)).pagesDispatched).toBe(4);

      await h.results.apply(tasks.slice(1).map((task) => pageResult(crawl.id, task)));

      expect(await readCrawl(h.db, crawl.id)).toMatchObject({
        status: 'completed',
        stopReason: 'max_pages',
        pagesFetched: 4,
        itemsFound: 10,
      });
      expect((await readFrontier(h.db, crawl.id)).filter((r) => r.state === 'queued')).toHaveLength(7);
    });

    it('fails the crawl with insufficient_credits once the tenant has used its credits', async () => {
      const crawl = await startCrawl({}, { creditsLimit: 1 });
      await h.dispatcher().dispatchRound();
      const [seed] = await tasksOf(crawl);
      await h.results.apply([pageResult(crawl.id, seed, { links: ['/a', '/b'] })]);
      expect((await readBilling(h.db, crawl.tenantId)).creditsUsed).toBe(1);

      await h.dispatcher().dispatchRound();

      expect(await readCrawl(h.db, crawl.id)).toMatchObject({
        status: 'failed',
        errorCode: 'insufficient_credits',
        pagesDispatched: 1,
        itemsFound: 2,
        finished: true,
      });
      expect(await h.publishedTasks(crawl.id)).toHaveLength(1);
    });
  });
});

describe(ReconcilerService.name, () => {
  describe('reconcileOnce', () => {
    it('queues a page again when its claim ran out, giving its dispatch back', async () => {
      const crawl = await startCrawl();
      await openSeed(crawl, ['/a']);
      const a = await claimOne(crawl, '/a');
      expect((await readCrawl(h.db, crawl.id)).pagesDispatched).toBe(2);

      await loseClaim(h.reconciler(), a);

      expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'queued', attempt: 1 });
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ status: 'running', pagesDispatched: 1, pagesFetched: 1 });
      expect(await claimOne(crawl, '/a')).toMatchObject({ frontierId: a.frontierId, attempt: 2 });
    });

    it('leaves a claim whose lease has not run out alone', async () => {
      const crawl = await startCrawl();
      await openSeed(crawl, ['/a']);
      await claimOne(crawl, '/a');

      await h.reconciler().reconcileOnce();

      expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'dispatched', attempt: 1 });
      expect((await readCrawl(h.db, crawl.id)).pagesDispatched).toBe(2);
    });

    it('counts a page as fetched and failed, without billing it, when its last claim ran out', async () => {
      const crawl = await startCrawl({ outputFormat: 'html' });
      const reconciler = h.reconciler();
      await openSeed(crawl, ['/a', '/b']);
      const [a, b] = await h.claim(crawl.id);
      await h.results.apply([pageResult(crawl.id, b)]);

      await loseClaim(reconciler, a);
      await loseClaim(reconciler, await claimOne(crawl, '/a'));

      expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'done', attempt: MAX_ATTEMPTS, contentStatus: 'failed' });
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({
        status: 'completed',
        stopReason: null,
        pagesDispatched: 3,
        pagesFetched: 3,
        pagesFailed: 1,
        itemsFound: 2,
      });
      expect((await readBilling(h.db, crawl.tenantId)).ledger).toHaveLength(2);
    });

    it("drops the claims of a failed crawl once their leases ran out, their kept pages' content failed", async () => {
      const crawl = await startCrawl({ outputFormat: 'html' });
      await openSeed(crawl, ['/a']);
      const a = await claimOne(crawl, '/a');
      await h.results.failCrawl(crawl.id, 'The crawl stopped on a service-side failure.');

      await loseClaim(h.reconciler(), a);

      expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'dropped', contentStatus: 'failed' });
    });

    it("drops the claims of a stopped crawl after the post-stop window, their kept pages' content failed", async () => {
      const crawl = await startCrawl({ outputFormat: 'html' });
      await openSeed(crawl, ['/a']);
      await claimOne(crawl, '/a');
      await stopCrawl(h.db, crawl.id, h.settings.stopWindowMs + 1_000);

      await h.reconciler().reconcileOnce();

      expect(await frontierRow(h.db, crawl.id, '/a')).toMatchObject({ state: 'dropped', contentStatus: 'failed' });
    });

    it("fails the crawl with seed_unreachable when the start URL's last claim ran out", async () => {
      const crawl = await startCrawl();
      const reconciler = h.reconciler();

      await loseClaim(reconciler, await claimOne(crawl, '/'));
      expect((await readCrawl(h.db, crawl.id)).status).toBe('running');
      await loseClaim(reconciler, await claimOne(crawl, '/'));

      expect(await readCrawl(h.db, crawl.id)).toMatchObject({
        status: 'failed',
        errorCode: 'seed_unreachable',
        pagesFetched: 1,
        pagesFailed: 1,
      });
    });
  });
});

describe(PageResultService.name, () => {
  describe('apply', () => {
    it('ignores the answer to a claim that was reclaimed and dispatched again, and applies the current one', async () => {
      const crawl = await startCrawl();
      await openSeed(crawl, ['/a']);
      const first = await claimOne(crawl, '/a');
      await loseClaim(h.reconciler(), first);
      const second = await claimOne(crawl, '/a');
      const before = {
        crawl: await readCrawl(h.db, crawl.id),
        frontier: await readFrontier(h.db, crawl.id),
        billing: await readBilling(h.db, crawl.tenantId),
      };

      // The first worker was only slow: its answer arrives after the page went out again.
      const late = await h.results.apply([pageResult(crawl.id, first, { links: ['/from-first'] })]);

      expect(late).toEqual({ applied: 0, stale: 1, crawlsWithNewWork: [], crawlsEnded: [], contentFailures: [] });
      expect({
        crawl: await readCrawl(h.db, crawl.id),
        frontier: await readFrontier(h.db, crawl.id),
        billing: await readBilling(h.db, crawl.tenantId),
      }).toEqual(before);

      const current = await h.results.apply([pageResult(crawl.id, second, { links: ['/from-second'] })]);

      expect(current).toMatchObject({ applied: 1, stale: 0 });
      expect((await readFrontier(h.db, crawl.id)).map((r) => r.url)).toEqual([`${SITE}/`, `${SITE}/a`, `${SITE}/from-second`]);
      expect((await readBilling(h.db, crawl.tenantId)).ledger.map((l) => l.ref)).toEqual([
        `crawl:${crawl.id}:${crawl.seedId}:1`,
        `crawl:${crawl.id}:${second.frontierId}:2`,
      ]);
      expect(await readCrawl(h.db, crawl.id)).toMatchObject({ pagesDispatched: 2, pagesFetched: 2, itemsFound: 2 });
    });
  });
});
