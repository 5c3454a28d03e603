import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type BrowserContext } from 'puppeteer-core';
import { CHROMIUM_FLAGS } from '../apps/fetch-worker/src/browser/chromium-process';
import { MeasuredWindow } from './measured-window';
import { treePssBytes, treeRssBytes } from './process-stats';

export interface RenderLoopResult {
  pages: number;
  errors: number;
  seconds: number;
  perSecond: number;
  /** Highest RSS of Chromium's whole process tree (summed over its processes), sampled every 250 ms. */
  peakRssBytes: number;
  /** Highest PSS of that tree (shared pages counted once), sampled every second. */
  peakPssBytes: number;
}

/**
 * What a careful user would write instead of Trawl's browser engine: one Chromium, `concurrency`
 * loops, each with one incognito context and one page opened once and reused for every load (a new
 * context and page per load starts a renderer process each time, which on a small machine costs
 * more than the load itself), loading until `load` (Trawl's js_render default waits for load too)
 * and reading the HTML. Same binary and flags as the worker; fixture hosts resolve through
 * `--host-resolver-rules`. Trawl isolates every request in a fresh context (tenants must not share
 * cookies or cache), so this loop is the stronger baseline.
 */
export async function puppeteerLoop(options: {
  url: string;
  hostMap: string;
  concurrency: number;
  seconds: number;
  warmupSeconds: number;
  /** Pages (of every slot together) the warm-up waits for besides its seconds; default 0. */
  warmupAnswers?: number;
  executablePath: string;
  /** Called once, when the warm-up ends and pages start to count. */
  onMeasuring?: () => void;
  /** Called once, when the measured seconds are over and before any page or the browser closes. */
  onMeasured?: () => void;
  /** The pages' viewport (Trawl renders at its desktop default unless asked otherwise). */
  viewport: { width: number; height: number };
}): Promise<RenderLoopResult> {
  const rules = options.hostMap
    .split(',')
    .map((entry) => entry.split('='))
    .map(([host, address]) => `MAP ${host} ${address}`)
    .join(',');
  const profile = mkdtempSync(join(tmpdir(), 'trawl-bench-chromium-'));
  const browser = await puppeteer.launch({
    executablePath: options.executablePath,
    headless: true,
    userDataDir: profile,
    // The worker's own flags (a careful user would tune Chromium as well as we do).
    args: [...CHROMIUM_FLAGS.filter((flag) => !flag.startsWith('--headless')), `--host-resolver-rules=${rules}`],
  });
  const pid = browser.process()?.pid ?? 0;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes(pid))), 250);
  let peakPss = 0;
  const pssSampler = setInterval(() => (peakPss = Math.max(peakPss, treePssBytes(pid))), 1_000);
  let pages = 0;
  let errors = 0;
  const window = new MeasuredWindow(options);
  const contexts: BrowserContext[] = [];
  const loop = async (): Promise<void> => {
    const context = await browser.createBrowserContext();
    contexts.push(context);
    const page = await context.newPage();
    await page.setViewport(options.viewport);
    while (window.open) {
      let ok = false;
      try {
        const response = await page.goto(options.url, { waitUntil: 'load', timeout: 30_000 });
        await page.content();
        ok = response !== null && response.ok();
      } catch {
        ok = false;
      }
      if (!window.counts()) continue;
      if (ok) pages += 1;
      else errors += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, loop));
    // Before the pages close: a renderer that exited is charged to its zygote only once reaped.
    options.onMeasured?.();
    await Promise.all(contexts.map((context) => context.close().catch(() => undefined)));
  } finally {
    clearInterval(sampler);
    clearInterval(pssSampler);
    await browser.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
  const seconds = window.seconds;
  return { pages, errors, seconds, perSecond: pages / seconds, peakRssBytes: peak, peakPssBytes: peakPss };
}
