import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'puppeteer-core';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { waitFor } from '@trawl/testing';
import { fixtureHostMap, startFixtureWeb, type FixtureWeb } from '../../../test/fixtures/web';
import { EgressProxy } from '../src/egress-proxy';
import { BrowserPool } from '../src/browser/browser-pool';
import { renderPage } from '../src/browser/render-page';
import { testIdentity } from '../src/identity/identity.test-support';

jest.setTimeout(60_000);

/** What the previous request of a page could leave behind, as the next document sees it. */
interface Leftovers {
  cookie: string;
  local: number;
  session: number;
  name: string;
  history: number;
}

describe('BrowserPool page reuse', () => {
  let web: FixtureWeb;
  let proxy: EgressProxy;
  let pool: BrowserPool;
  let tempRoot: string;
  const soon = () => Date.now() + 20_000;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    tempRoot = await mkdtemp(join(tmpdir(), 'trawl-reuse-test-'));
    proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) }) });
    pool = new BrowserPool({
      proxy,
      browsers: 1,
      pagesPerBrowser: 2,
      retireAfterPages: 1_000,
      // Storage buckets exist in secure contexts only; the fixture web is plain http.
      launch: { tempRoot, extraArgs: [`--unsafely-treat-insecure-origin-as-secure=${web.url('other.test', '/').replace(/\/$/, '')}`] },
      reuse: { idleMs: 60_000, maxParkedPerBrowser: 2 },
    });
    await pool.start();
  });

  afterAll(async () => {
    await pool?.close();
    await proxy?.close();
    await web?.close();
    await rm(tempRoot, { recursive: true, force: true });
  });

  /** Loads other.test/x, stores everything a page can, and leaves a timer that keeps storing and calling home. */
  async function dirty(reuseKey: string): Promise<Page> {
    return pool.withPage({ deadlineAt: soon(), reuseKey }, async ({ page }) => {
      await page.goto(web.url('other.test', '/x'));
      await page.evaluate(`
        document.cookie = 'a=1; path=/';
        localStorage.setItem('k', 'v');
        sessionStorage.setItem('s', 'v');
        window.name = 'left-behind';
        setInterval(() => { localStorage.setItem('late', '1'); document.cookie = 'late=1; path=/'; fetch('/tick'); }, 5);
      `);
      await waitFor(() => web.hits('other.test', '/tick') > 0, { what: 'the timer calling home' });
      return page;
    });
  }

  async function leftoversSeen(reuseKey: string): Promise<{ page: Page; seen: Leftovers; requests: number }> {
    return pool.withPage({ deadlineAt: soon(), reuseKey }, async ({ page, egress }) => {
      // Another page of the same site: the same URL again would replace the history entry.
      await page.goto(web.url('other.test', '/'));
      const seen = (await page.evaluate(
        `({ cookie: document.cookie, local: localStorage.length, session: sessionStorage.length, name: window.name, history: history.length })`,
      )) as Leftovers;
      return { page, seen, requests: egress.stats().requests };
    });
  }

  it('serves the next request of the same key with the same page, silenced and wiped in between', async () => {
    const before = pool.stats();
    const first = await dirty('tenant-a');
    // Parking finishes after the answer.
    await waitFor(() => pool.stats().parked === before.parked + 1, { what: 'the page parked' });
    const ticksWhenParked = web.hits('other.test', '/tick');

    const next = await leftoversSeen('tenant-a');
    expect(next.page).toBe(first);
    expect(next.seen).toEqual({ cookie: '', local: 0, session: 0, name: '', history: expect.any(Number) });
    // A fresh tab's history holds its first blank document and the page: no more.
    expect(next.seen.history).toBeLessThanOrEqual(2);
    expect(pool.stats().reused).toBe(before.reused + 1);
    // The egress counters are the second request's own: one document, nothing of the first.
    expect(next.requests).toBeGreaterThan(0);
    expect(next.requests).toBeLessThan(5);
    // The old document's timer died with it: nothing called home after it was parked.
    expect(web.hits('other.test', '/tick')).toBe(ticksWhenParked);
  });

  it('wipes what a page kept in IndexedDB, Cache Storage and its private file system', async () => {
    // Reads what the origin holds in each; used before the first request too, so the test cannot
    // pass on storage it failed to write.
    const stored = `(async () => ({
      databases: (await indexedDB.databases()).map((db) => db.name),
      caches: await caches.keys(),
      files: await (async () => { const names = []; for await (const name of (await navigator.storage.getDirectory()).keys()) names.push(name); return names; })(),
    }))()`;
    const first = await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-idb' }, async ({ page }) => {
      await page.goto(web.url('other.test', '/x'));
      await page.evaluate(`(async () => {
        await new Promise((resolve, reject) => {
          const open = indexedDB.open('tokens', 1);
          open.onupgradeneeded = () => open.result.createObjectStore('kv').put('secret', 'k');
          open.onsuccess = () => { open.result.close(); resolve(); };
          open.onerror = () => reject(open.error);
        });
        await (await caches.open('pages')).put('/x', new Response('kept'));
        const file = await (await navigator.storage.getDirectory()).getFileHandle('note.txt', { create: true });
        const writable = await file.createWritable();
        await writable.write('kept');
        await writable.close();
      })()`);
      return { page, seen: await page.evaluate(stored) };
    });
    expect(first.seen).toEqual({ databases: ['tokens'], caches: ['pages'], files: ['note.txt'] });
    await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });

    const next = await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-idb' }, async ({ page }) => {
      await page.goto(web.url('other.test', '/'));
      return { page, seen: await page.evaluate(stored) };
    });
    expect(next.page).toBe(first.page);
    expect(next.seen).toEqual({ databases: [], caches: [], files: [] });
  });

  it('wipes the storage of third-party frames too (kept apart from their site’s own)', async () => {
    /** other.test/x with a js.test frame: storage of a third-party frame is kept apart from js.test's own. */
    const withFrame = async (page: Page) => {
      await page.goto(web.url('other.test', '/x'));
      await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<iframe src="${web.url('js.test', '/')}"></iframe>')`);
      await waitFor(() => page.frames().some((frame) => frame.url().startsWith(web.url('js.test', '/'))), { what: 'the frame' });
      return page.frames().find((candidate) => candidate.url().startsWith(web.url('js.test', '/')))!;
    };
    const first = await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-h' }, async ({ page }) => {
      await (await withFrame(page)).evaluate(`localStorage.setItem('k', 'v'); sessionStorage.setItem('s', 'v')`);
      return page;
    });
    await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
    const next = await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-h' }, async ({ page }) => {
      const frame = await withFrame(page);
      return { page, seen: await frame.evaluate(`({ local: localStorage.length, session: sessionStorage.length })`) };
    });
    expect(next.page).toBe(first);
    expect(next.seen).toEqual({ local: 0, session: 0 });
  });

  it('does not reuse a tab that left an origin (its session storage is out of reach), and the next page sees nothing of it', async () => {
    const unwipeable = pool.stats().unwipeable;
    const first = await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-i' }, async ({ page }) => {
      await page.goto(web.url('other.test', '/x'));
      await page.evaluate(`localStorage.setItem('k', 'v'); sessionStorage.setItem('s', 'v')`);
      await page.goto(web.url('js.test', '/'));
      return page;
    });
    await waitFor(() => pool.stats().active === 0, { what: 'the page closed' });
    // Counted, for the operator who wonders why pages are not reused.
    expect(pool.stats().unwipeable).toBe(unwipeable + 1);
    const next = await leftoversSeen('tenant-i');
    expect(next.page).not.toBe(first);
    expect(next.seen).toMatchObject({ local: 0, session: 0 });
  });

  it('wipes a same-origin frame kept under a cross-site one (its storage is keyed apart from the page’s)', async () => {
    /** other.test/x ⊃ js.test/ ⊃ other.test/x: the inner frame has the page's origin, not its storage key. */
    const nested = async (page: Page) => {
      await page.goto(web.url('other.test', '/x'));
      await page.evaluate(`document.body.insertAdjacentHTML('beforeend', '<iframe src="${web.url('js.test', '/')}"></iframe>')`);
      await waitFor(() => page.frames().some((frame) => frame.url().startsWith(web.url('js.test', '/'))), { what: 'the middle frame' });
      const middle = page.frames().find((frame) => frame.url().startsWith(web.url('js.test', '/')))!;
      await middle.evaluate(`document.body.insertAdjacentHTML('beforeend', '<iframe src="${web.url('other.test', '/x')}"></iframe>')`);
      await waitFor(() => middle.childFrames().some((frame) => frame.url().startsWith(web.url('other.test', '/x'))), {
        what: 'the inner frame',
      });
      return middle.childFrames().find((frame) => frame.url().startsWith(web.url('other.test', '/x')))!;
    };
    const first = await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-k' }, async ({ page }) => {
      await (await nested(page)).evaluate(`localStorage.setItem('k', 'v')`);
      return page;
    });
    await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
    const next = await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-k' }, async ({ page }) => ({
      page,
      local: await (await nested(page)).evaluate('localStorage.length'),
    }));
    expect(next.page).toBe(first);
    expect(next.local).toBe(0);
  });

  it('does not reuse a page whose scripts broke the silencing, or that named a storage bucket', async () => {
    for (const [reuseKey, script] of [
      ['tenant-l', `window.stop = undefined`],
      ['tenant-m', `navigator.storageBuckets.open('token-abc123')`],
    ]) {
      const unwipeable = pool.stats().unwipeable;
      const first = await pool.withPage({ deadlineAt: soon(), reuseKey }, async ({ page }) => {
        await page.goto(web.url('other.test', '/x'));
        await page.evaluate(script);
        return page;
      });
      await waitFor(() => pool.stats().active === 0, { what: 'the page closed' });
      expect(pool.stats().unwipeable).toBe(unwipeable + 1);
      const next = await pool.withPage({ deadlineAt: soon(), reuseKey }, async ({ page }) => {
        await page.goto(web.url('other.test', '/x'));
        return { page, buckets: await page.evaluate(`navigator.storageBuckets.keys()`) };
      });
      expect(next.page).not.toBe(first);
      expect(next.buckets).toEqual([]);
    }
  });

  it('does not reuse a page that opened a window', async () => {
    const first = await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-j' }, async ({ page }) => {
      await page.goto(web.url('other.test', '/x'));
      await page.evaluate(`window.open('${web.url('other.test', '/')}')`);
      await waitFor(async () => (await page.browserContext().pages()).length === 2, { what: 'the window' });
      return page;
    });
    await waitFor(() => pool.stats().active === 0, { what: 'the page closed' });
    const next = await leftoversSeen('tenant-j');
    expect(next.page).not.toBe(first);
  });

  it('does not reuse a page whose workers still run: they outlive the silenced document', async () => {
    for (const [reuseKey, kind] of [
      ['tenant-w', 'Worker'],
      ['tenant-sw', 'SharedWorker'],
    ]) {
      const path = `/${kind}-tick`;
      const tick = web.url('other.test', path);
      const unwipeable = pool.stats().unwipeable;
      const first = await pool.withPage({ deadlineAt: soon(), reuseKey }, async ({ page }) => {
        await page.goto(web.url('other.test', '/x'));
        await page.evaluate(`
          const code = 'setInterval(() => fetch(${JSON.stringify(tick)}).catch(() => {}), 5)';
          window.keep = new ${kind}(URL.createObjectURL(new Blob([code], { type: 'text/javascript' })));
        `);
        await waitFor(() => web.hits('other.test', path) > 0, { what: `the ${kind} calling home` });
        return page;
      });
      await waitFor(() => first.isClosed(), { what: `the page with a ${kind} closed` });
      expect(pool.stats().unwipeable).toBe(unwipeable + 1);
      // The worker died with its page: once the next request is done, nothing more calls home.
      const next = await leftoversSeen(reuseKey);
      expect(next.page).not.toBe(first);
      const ticks = web.hits('other.test', path);
      await leftoversSeen(reuseKey);
      expect(web.hits('other.test', path)).toBe(ticks);
    }
  });

  it('fetches a cacheable page afresh when the page is reused', async () => {
    const textOf = () =>
      pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-cache' }, async ({ page }) => {
        await page.goto(web.url('other.test', '/cached'));
        return page.evaluate('document.body.innerText');
      });
    const before = web.hits('other.test', '/cached');
    const first = (await textOf()) as string;
    await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
    const reusedBefore = pool.stats().reused;
    const second = (await textOf()) as string;
    expect(pool.stats().reused).toBe(reusedBefore + 1);
    expect(web.hits('other.test', '/cached')).toBe(before + 2);
    expect(second).not.toEqual(first);
  });

  it('never gives one key’s page to another', async () => {
    const mine = await dirty('tenant-b');
    const reusedBefore = pool.stats().reused;
    const theirs = await leftoversSeen('tenant-c');
    expect(theirs.page).not.toBe(mine);
    expect(theirs.seen).toMatchObject({ cookie: '', local: 0, session: 0, name: '' });
    expect(pool.stats().reused).toBe(reusedBefore);
  });

  it('closes a page whose request discarded it, and a page whose request failed', async () => {
    const parkedBefore = pool.stats().parked;
    await pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-d' }, async ({ page, discard }) => {
      await page.goto(web.url('other.test', '/x'));
      discard();
    });
    await expect(
      pool.withPage({ deadlineAt: soon(), reuseKey: 'tenant-d' }, async () => {
        throw new Error('render failed');
      }),
    ).rejects.toThrow('render failed');
    expect(pool.stats().parked).toBe(parkedBefore);
    // Every session left open is a parked page's, or the browser-wide one (evictions close theirs in the background).
    await waitFor(() => proxy.openSessions === pool.stats().parked + 1, { what: 'no session but the parked pages’' });
  });

  it('never hands out a parked page whose renderer crashed: the next request loads in a fresh one', async () => {
    const before = pool.stats();
    const crashed = await dirty('tenant-i');
    // Parked (it may have pushed out an older page of another tenant).
    await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
    const parked = pool.stats().parked;
    const cdp = await crashed.createCDPSession();
    // The renderer dies while the page waits for the tenant's next request.
    void cdp.send('Page.crash').catch(() => undefined);
    await waitFor(() => pool.stats().parked === parked - 1, { what: 'the crashed page discarded' });

    const next = await leftoversSeen('tenant-i');
    expect(next.page).not.toBe(crashed);
    expect(next.seen).toMatchObject({ cookie: '', local: 0, session: 0, name: '' });
    expect(pool.stats().reused).toBe(before.reused);
    expect(pool.stats().crashed).toBe(before.crashed);
  });

  it('retries in a fresh page a request whose reused page hung while parked', async () => {
    const url = web.url('other.test', '/');
    // The second request's set-up differs for tenant-h2 and tenant-h3 (a wider window): it meets the
    // hung page in a DevTools call before its navigation (before a POST's body is sent), not in the
    // navigation.
    for (const [reuseKey, width, method] of [
      ['tenant-h', undefined, 'GET'],
      ['tenant-h2', 1_280, 'GET'],
      ['tenant-h3', 1_280, 'POST'],
    ] as const) {
      const render = (window_width?: number, verb: 'GET' | 'POST' = 'GET') =>
        pool.withPage({ deadlineAt: Date.now() + 40_000, reuseKey }, async (lease) => ({
          page: lease.page,
          reused: lease.reused,
          result: await renderPage(
            lease,
            {
              url,
              method: verb,
              headers: {},
              body: Buffer.from('a=1'),
              options: { json_response: false, window_width },
              deadlineAt: Date.now() + 40_000,
              identity: testIdentity(),
            },
            { commitTimeoutMs: 1_000 },
          ),
        }));
      const hung = (await render()).page;
      await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
      const before = pool.stats();
      const cdp = await hung.createCDPSession();
      // A callback of the old document that never returns: the renderer's main thread is lost.
      void cdp.send('Runtime.evaluate', { expression: 'for (;;) {}' }).catch(() => undefined);

      const next = await render(width, method);
      expect(next.page).not.toBe(hung);
      expect(next.reused).toBe(false);
      expect(next.result.status).toBe(200);
      expect(next.result.html).toContain('</html>');
      expect(hung.isClosed()).toBe(true);
      // Not failed, and the browser neither retired nor taken for crashed.
      expect(pool.stats()).toMatchObject({
        unresponsive: before.unresponsive + 1,
        reused: before.reused + 1,
        retired: before.retired,
        crashed: before.crashed,
      });
    }
  });

  it('keeps at most maxParkedPerBrowser pages, and none after close', async () => {
    for (const key of ['tenant-e', 'tenant-f', 'tenant-g']) await dirty(key);
    await waitFor(() => pool.stats().active === 0, { what: 'the last page parked' });
    expect(pool.stats().parked).toBe(2);
    // A parked page holds its egress session; closing the pool closes them.
    expect(proxy.openSessions).toBeGreaterThanOrEqual(2);
    await pool.close();
    expect(pool.stats().parked).toBe(0);
    expect(proxy.openSessions).toBe(0);
  });
});

describe('BrowserPool page reuse, idle pages', () => {
  it('closes a parked page nobody asked for within idleMs', async () => {
    const web = await startFixtureWeb({ bigSitePages: 10 });
    const tempRoot = await mkdtemp(join(tmpdir(), 'trawl-reuse-idle-test-'));
    const proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) }) });
    // Long enough for a poll every 50 ms to see the page parked on a loaded machine.
    const pool = new BrowserPool({ proxy, browsers: 1, pagesPerBrowser: 1, launch: { tempRoot }, reuse: { idleMs: 1_000 } });
    try {
      await pool.start();
      const sessionsIdle = proxy.openSessions;
      await pool.withPage({ deadlineAt: Date.now() + 20_000, reuseKey: 'tenant-h' }, ({ page }) => page.goto(web.url('other.test', '/x')));
      await waitFor(() => pool.stats().parked === 1, { what: 'the page parked' });
      await waitFor(() => pool.stats().parked === 0 && proxy.openSessions === sessionsIdle, {
        timeoutMs: 10_000,
        what: 'the idle page closed',
      });
    } finally {
      await pool.close();
      await proxy.close();
      await web.close();
      await rm(tempRoot, { recursive: true, force: true });
    }
  });
});
