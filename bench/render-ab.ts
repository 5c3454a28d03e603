/**
 * What each step Trawl's browser engine adds to a plain page loop costs Chromium: two browsers run
 * side by side in the same seconds, one loading pages plainly, the other with one of Trawl's steps,
 * and each browser's process group is charged its own CPU. Side by side, because this machine's
 * speed drifts by a fifth over minutes: variants measured one after another compare the drift.
 *
 *   node -r ./tools/register-aliases.js dist/bench/render-ab.js [--seconds 25] [--concurrency 8] [--path /p/2] [--pairs plain:park,plain:proxy]
 *
 * Variants: `plain` (goto until load, then content), `proxy` (the context behind a session of the
 * worker's egress proxy), `park` (proxy, then the page wiped by `parkPage` after each load, as the
 * pool does), `cookies` (the context's cookies read after each load), `nocache` (cache disabled),
 * `wide` (Trawl's 1920×1080 viewport), `pause` (50 ms after each page, as a served page waits for
 * its next request), `clear` (the HTTP cache cleared after each page, as a parked page's is),
 * `window` (the window at the largest identity's size, 2560×1313), `identity` (an identity's
 * overrides and init script, as a render applies them), `engine` (the worker's own BrowserPool and
 * renderPage, one browser of its own).
 * Each row also splits each side's CPU by Chromium process type.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser } from 'puppeteer-core';
import { EgressPolicy, parseHostMap } from '@trawl/egress';
import { BrowserPool, renderPage, type RenderOptions } from '../apps/fetch-worker/src/browser';
import { CHROMIUM_FLAGS } from '../apps/fetch-worker/src/browser/chromium-process';
import { emulateIdentity } from '../apps/fetch-worker/src/browser/identity-emulation';
import { parkPage, trackActivity } from '../apps/fetch-worker/src/browser/page-reuse';
import { EgressProxy } from '../apps/fetch-worker/src/egress-proxy';
import { IdentityGenerator, readEngineVersion } from '../apps/fetch-worker/src/identity';
import { startFixtureWebProcess } from './fixture-web-process';

const VARIANTS = ['plain', 'proxy', 'park', 'cookies', 'nocache', 'wide', 'engine', 'pause', 'clear', 'window', 'identity'] as const;
type Variant = (typeof VARIANTS)[number];

/** User + system CPU seconds of every live process in group `pgid` (reaped children included). */
function groupCpuSeconds(pgid: number): number {
  let total = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[2] is the group (field 5); utime, stime, cutime, cstime are fields 14 to 17.
    if (Number(fields[2]) === pgid) total += fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100;
  }
  return total;
}

/** CPU seconds of group `pgid` by Chromium process type (browser, renderer, gpu-process, utility…), reaped children under their parent. */
function groupCpuByType(pgid: number): Map<string, number> {
  const byType = new Map<string, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    let cmdline: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    const type = /--utility-sub-type=[a-z]+\.mojom\.(\w+)/.exec(cmdline)?.[1] ?? /--type=([a-z-]+)/.exec(cmdline)?.[1] ?? 'browser';
    byType.set(type, (byType.get(type) ?? 0) + fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) / 100);
  }
  return byType;
}

interface Side {
  browser: Browser;
  variant: Variant;
  pages: number;
  /** The `engine` variant's pool (one browser of its own), instead of `browser`. */
  pool?: BrowserPool;
}

function sidePgid(side: Side): number {
  return side.pool ? side.pool.browserProcessGroups()[0] : side.browser.process()!.pid!;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const seconds = Number(option('--seconds', '25'));
  const concurrency = Number(option('--concurrency', '8'));
  const pairs = option('--pairs', 'plain:plain,plain:park,plain:proxy,plain:cookies')
    .split(',')
    .map((pair) => pair.split(':') as [Variant, Variant]);
  for (const variant of pairs.flat())
    if (!VARIANTS.includes(variant)) throw new Error(`unknown variant ${variant}; one of ${VARIANTS.join(', ')}`);

  const web = await startFixtureWebProcess(100);
  const url = `http://big.test:${web.port}${option('--path', '/p/2')}`;
  const identity = new IdentityGenerator(await readEngineVersion('/usr/bin/chromium')).identityFor({
    tenantId: 'bench',
    domain: 'big.test',
    device: 'desktop',
  });
  const proxy = new EgressProxy({ policy: new EgressPolicy({ hostMap: parseHostMap('big.test=127.0.0.1') }) });
  const profiles: string[] = [];
  const launch = () => {
    profiles.push(mkdtempSync(join(tmpdir(), 'trawl-render-ab-')));
    return puppeteer.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      userDataDir: profiles[profiles.length - 1],
      args: [...CHROMIUM_FLAGS.filter((flag) => !flag.startsWith('--headless')), '--host-resolver-rules=MAP big.test 127.0.0.1'],
    });
  };
  const browsers = [await launch(), await launch()];
  try {
    process.stdout.write(
      `| pair | pages/s | Chromium CPU ms/page | variant / first | ms/page by process type (first ‖ second) |\n|---|---|---|---|---|\n`,
    );
    for (const pair of pairs) {
      const sides: Side[] = pair.map((variant, at) => ({ browser: browsers[at], variant, pages: 0 }));
      for (const side of sides.filter((one) => one.variant === 'engine')) {
        side.pool = new BrowserPool({
          proxy,
          browsers: 1,
          pagesPerBrowser: concurrency / 2,
          launch: { extraArgs: ['--host-resolver-rules=MAP big.test 127.0.0.1'] },
        });
        await side.pool.start();
      }
      let open = true;
      let measuring = false;
      const engineLoop = async (pool: BrowserPool, side: Side) => {
        while (open) {
          await pool.withPage({ deadlineAt: Date.now() + 30_000, reuseKey: 'tenant' }, (lease) =>
            renderPage(lease, {
              url,
              method: 'GET',
              headers: {},
              options: { json_response: false } as RenderOptions,
              deadlineAt: Date.now() + 30_000,
              identity,
            }),
          );
          if (measuring && open) side.pages += 1;
        }
      };
      const loop = async (side: Side) => {
        if (side.pool) return engineLoop(side.pool, side);
        const session = side.variant === 'proxy' || side.variant === 'park' ? await proxy.openSession({}) : undefined;
        const context = await side.browser.createBrowserContext(
          session ? { proxyServer: session.url, proxyBypassList: ['<-loopback>'] } : {},
        );
        const page = await context.newPage();
        const activity = trackActivity(page);
        const cdp =
          side.variant === 'park' || side.variant === 'clear' || side.variant === 'window' ? await page.createCDPSession() : undefined;
        if (cdp && side.variant === 'window') {
          const { windowId } = await cdp.send('Browser.getWindowForTarget');
          await cdp.send('Browser.setWindowBounds', {
            windowId,
            bounds: { left: 0, top: 0, width: 2560, height: 1313, windowState: 'normal' },
          });
        }
        if (side.variant === 'identity') await emulateIdentity(page, identity, 10_000);
        if (side.variant === 'nocache') await page.setCacheEnabled(false);
        if (side.variant === 'wide') await page.setViewport({ width: 1920, height: 1080 });
        while (open) {
          await page.goto(url, { waitUntil: 'load', timeout: 30_000 });
          await page.content();
          if (side.variant === 'cookies') await context.cookies();
          if (side.variant === 'pause') await new Promise((resolve) => setTimeout(resolve, 50));
          if (cdp && side.variant === 'clear') await cdp.send('Network.clearBrowserCache');
          if (cdp && side.variant === 'park' && (await parkPage({ context, page, cdp, uses: 0, activity }, 10_000)))
            throw new Error('the page could not be wiped');
          if (measuring && open) side.pages += 1;
        }
        await context.close();
        await session?.close();
      };
      const running = Promise.all(sides.flatMap((side) => Array.from({ length: concurrency / 2 }, () => loop(side))));
      await new Promise((resolve) => setTimeout(resolve, 5_000)); // renderers started, caches warm
      const cpuAt = sides.map((side) => groupCpuSeconds(sidePgid(side)));
      const typesAt = sides.map((side) => groupCpuByType(sidePgid(side)));
      measuring = true;
      await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
      const cpu = sides.map((side, at) => groupCpuSeconds(sidePgid(side)) - cpuAt[at]);
      const types = sides.map((side, at) => {
        const now = groupCpuByType(sidePgid(side));
        return [...now]
          .map(([type, seconds]) => `${type} ${(((seconds - (typesAt[at].get(type) ?? 0)) * 1_000) / Math.max(1, side.pages)).toFixed(1)}`)
          .join(', ');
      });
      measuring = false;
      open = false;
      await running;
      await Promise.all(sides.map((side) => side.pool?.close()));
      const perPage = sides.map((side, at) => (cpu[at] * 1_000) / side.pages);
      process.stdout.write(
        `| ${pair.join(' : ')} | ${sides.map((side) => (side.pages / seconds).toFixed(1)).join(' : ')} | ${perPage.map((ms) => ms.toFixed(0)).join(' : ')} | ${((perPage[1] / perPage[0]) * 100).toFixed(0)} % | ${types.join(' ‖ ')} |\n`,
      );
    }
  } finally {
    await Promise.all(browsers.map((browser) => browser.close()));
    await proxy.close();
    await web.stop();
    for (const profile of profiles) rmSync(profile, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
