import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { waitFor } from '@trawl/testing';
import { PROBE_CONTEXTS, StealthProbe, type ProbeRun } from '../../../test/fixtures/stealth-probe';
import { EgressProxy } from '../src/egress-proxy';
import { BrowserPool, type BrowserLease } from '../src/browser/browser-pool';

jest.setTimeout(60_000);

/** Pages of a site with globals of their own, a same-origin and a cross-site frame, and a late element. */
function respond(host: string, path: string, port: number): string {
  const other = `http://quiet-b.test:${port}`;
  switch (path) {
    case '/globals':
      return (
        `<script>var pageVar = 'top';</script>` +
        `<iframe id="same" srcdoc="<script>var pageVar = 'same-origin frame';</script>"></iframe>` +
        `<iframe id="cross" src="${other}/frame"></iframe>`
      );
    case '/frame':
      return `<script>var pageVar = 'cross-site frame on ${host}';</script>`;
    case '/late':
      return `<script>var pageVar = 'late'; setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p id="later">here</p>'), 300);</script>`;
    default:
      return `<script>var pageVar = 'first';</script><p>first</p>`;
  }
}

describe('quiet runtime: puppeteer without DevTools Runtime', () => {
  const probe = new StealthProbe();
  let server: Server;
  let port: number;
  let proxy: EgressProxy;
  let pool: BrowserPool;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (request.headers.host?.startsWith('probe')) return probe.handle(request, response);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(`<!doctype html><html><body>${respond(String(request.headers.host).split(':')[0], url.pathname, port)}</body></html>`);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as { port: number }).port;
    const hosts = ['quiet-a.test', 'quiet-b.test', 'probe.test', 'probe-b.test'].map((host) => `${host}=127.0.0.1`).join(',');
    proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap(hosts) }), connectTimeoutMs: 2_000 });
    pool = new BrowserPool({ proxy, browsers: 1, pagesPerBrowser: 2 });
    await pool.start();
  });
  afterAll(async () => {
    await pool?.close();
    await proxy?.close();
    server?.close();
  });

  const url = (path: string, host = 'quiet-a.test') => `http://${host}:${port}${path}`;
  const withPage = <T>(work: (lease: BrowserLease) => Promise<T>, reuseKey?: string) =>
    pool.withPage({ deadlineAt: Date.now() + 30_000, reuseKey }, work);
  const leaks = (run: ProbeRun) => Object.fromEntries(PROBE_CONTEXTS.map((context) => [context, run.reports[context]?.leak]));

  async function probeWith(visit: (url: string) => Promise<void>): Promise<ProbeRun> {
    const run = `q${Date.now()}${Math.random().toString(36).slice(2)}`;
    await visit(`http://probe.test:${port}/probe.html?run=${run}&cross=${encodeURIComponent(`http://probe-b.test:${port}`)}`);
    return waitFor(() => (probe.complete(run) ? probe.run(run) : undefined), { what: `every probe context of ${run}` });
  }

  it('leaves a page, its frames and their workers without a DevTools Runtime client; a browser not made quiet has one', async () => {
    const quiet = await withPage(({ page }) => probeWith(async (target) => void (await page.goto(target))));
    expect(leaks(quiet)).toEqual(Object.fromEntries(PROBE_CONTEXTS.map((context) => [context, false])));

    const dir = mkdtempSync(join(tmpdir(), 'quiet-bare-'));
    const bare = await puppeteer.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless=new', '--no-sandbox', `--host-resolver-rules=MAP probe.test 127.0.0.1, MAP probe-b.test 127.0.0.1`],
      userDataDir: dir,
    });
    try {
      const page = await bare.newPage();
      const loud = await probeWith(async (target) => void (await page.goto(target)));
      expect(loud.reports.page?.leak).toBe(true);
    } finally {
      await bare.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("evaluates in the page's own world, and in a same-origin and a cross-site frame's", async () => {
    const seen = await withPage(async ({ page }) => {
      await page.goto(url('/globals'), { waitUntil: 'load' });
      const frames = page.frames();
      const cross = frames.find((frame) => frame.url().startsWith(url('/frame', 'quiet-b.test')))!;
      const same = frames.find((frame) => frame.url() === 'about:srcdoc')!;
      return {
        page: await page.evaluate('pageVar'),
        same: await same.evaluate('pageVar'),
        cross: await cross.evaluate('pageVar'),
        html: await page.content(),
      };
    });
    expect(seen).toMatchObject({ page: 'top', same: 'same-origin frame', cross: 'cross-site frame on quiet-b.test' });
    expect(seen.html).toContain('<iframe id="cross"');
  });

  it('follows the page into its next documents: a wait begun in one ends in the next, evaluations reach the new one', async () => {
    const seen = await withPage(async ({ page }) => {
      await page.goto(url('/'));
      const first = await page.evaluate('pageVar');
      const later = page.waitForSelector('#later', { timeout: 10_000 });
      await page.evaluate(`location.href = ${JSON.stringify(url('/late'))}`);
      const found = await later;
      return { first, later: await found?.evaluate((element) => element.textContent), now: await page.evaluate('pageVar') };
    });
    expect(seen).toEqual({ first: 'first', later: 'here', now: 'late' });
  });

  it('serves a reused page as a new one: its next document is evaluated, not the parked one', async () => {
    const reuseKey = `quiet-${Date.now()}`;
    for (const path of ['/', '/late']) {
      const value = await withPage(async ({ page }) => {
        await page.goto(url(path), { waitUntil: 'load' });
        return page.evaluate('pageVar');
      }, reuseKey);
      expect(value).toBe(path === '/' ? 'first' : 'late');
      await waitFor(() => pool.stats().active === 0, { what: 'the page parked' });
    }
    expect(pool.stats().reused).toBeGreaterThan(0);
  });
});
