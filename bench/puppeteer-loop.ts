import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { treeRssBytes } from './process-stats';

export interface RenderLoopResult {
  pages: number;
  errors: number;
  seconds: number;
  perSecond: number;
  /** Highest RSS of Chromium's whole process tree, sampled every 250 ms. */
  peakRssBytes: number;
}

/**
 * What a user would write instead of Trawl's browser engine: one Chromium, `concurrency` loops each
 * opening a fresh incognito context, loading the page until `load`, reading its HTML and closing.
 * Same binary and flags as the worker; fixture hosts resolve through `--host-resolver-rules`.
 */
export async function puppeteerLoop(options: {
  url: string;
  hostMap: string;
  concurrency: number;
  seconds: number;
  warmupSeconds: number;
  executablePath: string;
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
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
      `--host-resolver-rules=${rules}`,
    ],
  });
  const pid = browser.process()?.pid ?? 0;
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, treeRssBytes(pid))), 250);
  let pages = 0;
  let errors = 0;
  let measuring = false;
  let measuredFrom = 0;
  const warmupEnds = Date.now() + options.warmupSeconds * 1000;
  const ends = warmupEnds + options.seconds * 1000;
  const loop = async (): Promise<void> => {
    while (Date.now() < ends) {
      let ok = false;
      const context = await browser.createBrowserContext();
      try {
        const page = await context.newPage();
        const response = await page.goto(options.url, { waitUntil: 'load', timeout: 30_000 });
        await page.content();
        ok = response !== null && response.ok();
      } catch {
        ok = false;
      } finally {
        await context.close().catch(() => undefined);
      }
      if (!measuring && Date.now() >= warmupEnds) {
        measuring = true;
        measuredFrom = Date.now();
      }
      if (!measuring) continue;
      if (ok) pages += 1;
      else errors += 1;
    }
  };
  try {
    await Promise.all(Array.from({ length: options.concurrency }, loop));
  } finally {
    clearInterval(sampler);
    await browser.close().catch(() => undefined);
    rmSync(profile, { recursive: true, force: true });
  }
  const seconds = (Date.now() - measuredFrom) / 1000;
  return { pages, errors, seconds, perSecond: pages / seconds, peakRssBytes: peak };
}
