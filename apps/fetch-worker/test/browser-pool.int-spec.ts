import { mkdir, mkdtemp, readdir, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { waitFor } from '@trawl/testing';
import { fixtureHostMap, startFixtureWeb, type FixtureWeb } from '../../../test/fixtures/web';
import { EgressProxy } from '../src/egress-proxy';
import { BrowserError, BrowserErrorCode } from '../src/browser/browser.errors';
import { BrowserPool } from '../src/browser/browser-pool';
import { processesInGroup } from '../src/browser/process-group';

jest.setTimeout(60_000);

const LEFT_BEHIND = 'trawl-chromium-left-behind';

describe(BrowserPool.name, () => {
  let web: FixtureWeb;
  let proxy: EgressProxy;
  let pool: BrowserPool;
  let tempRoot: string;
  // Every browser process group seen during the file, to prove that none is left after close.
  const groupsSeen = new Set<number>();
  const noteGroups = () => pool.browserProcessGroups().forEach((pgid) => groupsSeen.add(pgid));
  const soon = (ms = 20_000) => Date.now() + ms;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    tempRoot = await mkdtemp(join(tmpdir(), 'trawl-pool-test-'));
    // What a worker killed an hour ago left: its browsers died with it, their folders did not.
    await mkdir(join(tempRoot, LEFT_BEHIND, 'profile'), { recursive: true });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(join(tempRoot, LEFT_BEHIND), anHourAgo, anHourAgo);
    proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) }) });
    pool = new BrowserPool({ proxy, browsers: 2, pagesPerBrowser: 2, retireAfterPages: 4, closeGraceMs: 1_000, launch: { tempRoot } });
    await pool.start();
    noteGroups();
  });

  afterAll(async () => {
    await pool?.close();
    await proxy?.close();
    await web?.close();
    await rm(tempRoot, { recursive: true, force: true });
  });

  beforeEach(() => web.resetHits());

  async function title(url: string): Promise<string> {
    return pool.withPage({ deadlineAt: soon() }, async ({ page }) => {
      await page.goto(url, { timeout: 15_000 });
      return page.title();
    });
  }

  describe('start', () => {
    it("removes the folders of browsers a dead worker left behind, and keeps its own browsers' folders", async () => {
      const folders = await readdir(tempRoot);
      expect(folders).not.toContain(LEFT_BEHIND);
      expect(folders.length).toBeGreaterThanOrEqual(2);
    });
  });

  describe('crash recovery', () => {
    it('fails the pages of a killed Chromium with BrowserCrashed, then renders again on fresh browsers', async () => {
      const crashedBefore = pool.stats().crashed;
      // Fresh browsers (well under their page budget, so none retires mid-test): four renders of a
      // page that answers after 12 s, so that all of them are in flight when Chromium dies even on a
      // loaded machine where opening a page takes seconds.
      const renders = Array.from({ length: 4 }, (_, i) =>
        title(web.url('slow.test', `/slow/${i + 1}?ms=12000`)).then(
          () => undefined,
          (error: unknown) => error,
        ),
      );
      await waitFor(() => pool.stats().active === 4 && [1, 2, 3, 4].every((i) => web.hits('slow.test', `/slow/${i}?ms=12000`) === 1), {
        timeoutMs: 20_000,
        what: 'four pages in flight',
      });
      noteGroups();
      const groups = pool.browserProcessGroups();
      expect(pool.stats().active).toBe(4);
      for (const pgid of groups) process.kill(-pgid, 'SIGKILL');

      const errors = await Promise.all(renders);
      for (const error of errors) {
        expect(error).toBeInstanceOf(BrowserError);
        expect((error as BrowserError).code).toBe(BrowserErrorCode.BrowserCrashed);
      }
      await waitFor(() => pool.stats().ready === 2, { timeoutMs: 20_000, what: 'replacement browsers' });
      noteGroups();
      expect(pool.stats().crashed).toBe(crashedBefore + groups.length);
      expect(pool.browserProcessGroups().some((pgid) => groups.includes(pgid))).toBe(false);
      await waitFor(() => groups.every((pgid) => processesInGroup(pgid, { includeZombies: true }).length === 0), {
        what: 'killed groups gone',
      });

      const titles = await Promise.all([1, 2, 3].map(() => title(web.url('other.test', '/x'))));
      expect(titles).toEqual(['Other site x', 'Other site x', 'Other site x']);
    });
  });

  describe('a wedged browser', () => {
    it('times out a call to a browser that stopped answering, kills it and renders on a fresh one', async () => {
      const wedgedPool = new BrowserPool({
        proxy,
        browsers: 1,
        pagesPerBrowser: 2,
        // Long enough for a fresh browser's first page on a machine busy with the whole suite (1.5 s was not, in CI).
        callTimeoutMs: 4_000,
        closeGraceMs: 500,
        launch: { tempRoot },
      });
      await wedgedPool.start();
      try {
        const [pgid] = wedgedPool.browserProcessGroups();
        // Stopped: alive and connected, holding its sockets, answering nothing, as a wedged Chromium is.
        process.kill(-pgid!, 'SIGSTOP');
        const started = Date.now();
        const error = await wedgedPool
          .withPage({ deadlineAt: soon() }, ({ page }) => page.goto(web.url('other.test', '/x')))
          .then(
            () => undefined,
            (failure: unknown) => failure,
          );
        expect(error).toBeInstanceOf(BrowserError);
        expect((error as BrowserError).code).toBe(BrowserErrorCode.CallTimeout);
        expect(Date.now() - started).toBeLessThan(4_000 + 3_000);
        await waitFor(() => processesInGroup(pgid!, { includeZombies: true }).length === 0, {
          timeoutMs: 10_000,
          what: 'the wedged browser killed',
        });
        await waitFor(() => wedgedPool.stats().ready === 1, { timeoutMs: 20_000, what: 'a replacement browser' });
        expect(wedgedPool.browserProcessGroups()).not.toContain(pgid);
        const title = await wedgedPool.withPage({ deadlineAt: soon() }, async ({ page }) => {
          await page.goto(web.url('other.test', '/x'), { timeout: 15_000 });
          return page.title();
        });
        expect(title).toBe('Other site x');
      } finally {
        await wedgedPool.close();
      }
    });
  });

  describe('withPage', () => {
    it('renders in an isolated context whose traffic goes through its own egress session', async () => {
      const before = proxy.openSessions;
      const seen = await pool.withPage({ deadlineAt: soon() }, async ({ page, egress, context }) => {
        await page.goto(web.url('other.test', '/x'));
        await page.evaluate('document.cookie = "a=1"');
        const isolated = context !== page.browser().defaultBrowserContext();
        return { title: await page.title(), requests: egress.stats().requests, isolated };
      });
      expect(seen).toEqual({ title: 'Other site x', requests: expect.any(Number), isolated: true });
      expect(seen.requests).toBeGreaterThan(0);
      expect(web.hits('other.test', '/x')).toBe(1);
      // Context and egress session are closed with the lease: the next request sees no cookie.
      expect(proxy.openSessions).toBe(before);
      const cookie = await pool.withPage({ deadlineAt: soon() }, async ({ page }) => {
        await page.goto(web.url('other.test', '/x'));
        return page.evaluate('document.cookie');
      });
      expect(cookie).toBe('');
    });

    it('answers PoolBusy when no slot frees before the deadline', async () => {
      let releaseAll!: () => void;
      const held = new Promise<void>((resolve) => (releaseAll = resolve));
      const holders = Array.from({ length: 4 }, () => pool.withPage({ deadlineAt: soon() }, () => held));
      await waitFor(() => pool.stats().active === 4, { what: 'four pages open' });
      const started = Date.now();
      await expect(pool.withPage({ deadlineAt: Date.now() + 300 }, async () => 'never')).rejects.toMatchObject({
        code: BrowserErrorCode.PoolBusy,
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(250);
      // A waiter with time left gets the slot as soon as one frees.
      const waiting = pool.withPage({ deadlineAt: soon() }, async () => 'served');
      await waitFor(() => pool.stats().waiting === 1, { what: 'one waiter' });
      releaseAll();
      await Promise.all(holders);
      await expect(waiting).resolves.toBe('served');
    });

    it('stops a page at once when its request is aborted', async () => {
      const controller = new AbortController();
      const started = Date.now();
      const rendering = pool.withPage({ deadlineAt: soon(), signal: controller.signal }, ({ page }) =>
        page.goto(web.url('slow.test', '/slow/9?ms=20000')),
      );
      await waitFor(() => web.hits('slow.test', '/slow/9?ms=20000') === 1, { what: 'page requested' });
      controller.abort();
      await expect(rendering).rejects.toMatchObject({ code: BrowserErrorCode.Aborted });
      expect(Date.now() - started).toBeLessThan(10_000);
      await waitFor(() => pool.stats().active === 0, { what: 'slot released' });
    });

    it('retires a browser after its page budget and replaces it', async () => {
      const launchedBefore = pool.stats().launched;
      for (let i = 0; i < 8; i++) expect(await title(web.url('other.test', '/'))).toBe('Other site');
      noteGroups();
      await waitFor(() => pool.stats().ready === 2 && pool.stats().launched > launchedBefore, { timeoutMs: 20_000, what: 'replacements' });
      noteGroups();
      expect(pool.stats().retired).toBeGreaterThan(0);
    });
  });

  describe('close', () => {
    it('leaves no Chromium process and no temp folder, and refuses new work', async () => {
      noteGroups();
      expect(groupsSeen.size).toBeGreaterThanOrEqual(4);
      expect((await readdir(tempRoot)).length).toBeGreaterThan(0);
      await pool.close();
      await pool.close();
      for (const pgid of groupsSeen) expect(processesInGroup(pgid)).toEqual([]);
      // Zombies too: Chromium's helpers, orphaned by the kill, are reaped by init within moments; one
      // left for good would be a process this pool leaked.
      await waitFor(() => [...groupsSeen].every((pgid) => processesInGroup(pgid, { includeZombies: true }).length === 0), {
        timeoutMs: 5_000,
        what: 'no zombie left in any browser group',
      });
      expect(await readdir(tempRoot)).toEqual([]);
      await expect(title(web.url('other.test', '/x'))).rejects.toMatchObject({ code: BrowserErrorCode.PoolClosed });
    });
  });
});
