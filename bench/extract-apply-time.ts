import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { applyRecipe, parseRecipe, type Recipe } from '@trawl/extraction';
import { readPageHtml, type DatasetPage } from './extract-datasets';
import type { LearnJob } from './extract-learn-worker';

/** Pages this close to 200 KB are the ones the target speaks of. */
const SIZE_BAND = { min: 150 * 1024, max: 250 * 1024 };
/** Runs per page; the page's time is their median (the machine is shared). */
const RUNS = 15;
/** Issue 32's target: a recipe applied to a 200 KB page within 10 ms at the 95th percentile, warm and cold. */
export const APPLY_TARGET_MS = 10;

export interface Percentiles {
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
}

export interface ApplyTimes {
  pages: number;
  /** Each page's median run (its parse and the recipe's selectors seen before). */
  warm: Percentiles;
  /** Each page's first run (the process has applied recipes before, so V8's code is warm, not the page's). */
  cold: Percentiles;
  /** The warm runs' process CPU time: what the machine's other load does not move. */
  warmCpu: Percentiles;
}

/**
 * How long a recipe takes to apply on a fetch worker, measured where it runs: `applyRecipe` over
 * the dataset's pages of about 200 KB (parsing included), each domain's recipe learned from its own
 * pages on another thread (as the scheduler learns them in its own process) and read from its JSON
 * (as a fetch worker reads it from NATS KV), after the other pages of the dataset were served once.
 * Warm: each page's median of 15 runs; cold: each page's first run. The verdict takes the 95th
 * percentile of both.
 */
export async function measureApplyTimes(pages: readonly DatasetPage[]): Promise<ApplyTimes | undefined> {
  const byDomain = new Map<string, LoadedPage[]>();
  for (const page of pages) byDomain.set(page.domain, [...(byDomain.get(page.domain) ?? []), { page, html: readPageHtml(page) }]);
  const domains: DomainPages[] = [...byDomain].map(([domain, all]) => ({ domain, all, sized: sizedPages(all) }));
  const measured = domains.filter(({ sized }) => sized.length > 0);
  const learned = await learnOnAnotherThread(measured.map(({ domain, all }) => ({ domain, pages: all.map(({ page }) => page) })));
  const recipes = new Map(measured.map(({ domain }, index) => [domain, parseRecipe(JSON.parse(learned[index]))]));
  servePagesOutsideTheMeasure(domains, recipes);
  const warm: number[] = [];
  const cold: number[] = [];
  const warmCpu: number[] = [];
  for (const { domain, sized } of measured) {
    const recipe = recipes.get(domain) as Recipe;
    for (const { page, html } of sized) {
      const { runs, cpuRuns } = timeApplies(recipe, page, html, RUNS);
      cold.push(runs[0]);
      warm.push(percentile(runs.slice(1), 0.5));
      warmCpu.push(percentile(cpuRuns.slice(1), 0.5));
    }
  }
  if (warm.length === 0) return undefined;
  const summary = (times: number[]): Percentiles => ({
    p50Ms: percentile(times, 0.5),
    p95Ms: percentile(times, 0.95),
    maxMs: Math.max(...times),
  });
  return {
    pages: warm.length,
    warm: summary(warm),
    cold: summary(cold),
    warmCpu: summary(warmCpu),
  };
}

/**
 * Applies recipes once to every page that is not measured (its domain's recipe, else the first
 * one), as a fetch worker has served other requests before the one measured: its code is compiled,
 * the measured pages and their recipes' selectors are new to it.
 */
function servePagesOutsideTheMeasure(domains: readonly DomainPages[], recipes: Map<string, Recipe>): void {
  const first = recipes.values().next().value;
  if (first === undefined) return;
  for (const { domain, all, sized } of domains) {
    const measured = new Set(sized);
    for (const served of all) {
      if (!measured.has(served)) applyRecipe(recipes.get(domain) ?? first, { html: served.html, url: served.page.originalUrl });
    }
  }
}

/** A dataset page with its HTML read. */
interface LoadedPage {
  page: DatasetPage;
  html: string;
}

/** A domain's pages, and those of them the measure times (about 200 KB). */
interface DomainPages {
  domain: string;
  all: LoadedPage[];
  sized: LoadedPage[];
}

function sizedPages(domainPages: readonly LoadedPage[]): LoadedPage[] {
  return domainPages.filter(({ html }) => Buffer.byteLength(html) >= SIZE_BAND.min && Buffer.byteLength(html) <= SIZE_BAND.max);
}

/** Wall and process CPU time of `runs` applies of `recipe` to one page, in ms, in order. */
function timeApplies(recipe: Recipe, page: DatasetPage, html: string, runs: number): { runs: number[]; cpuRuns: number[] } {
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let i = 0; i < runs; i++) {
    const cpuBefore = process.cpuUsage();
    const started = process.hrtime.bigint();
    applyRecipe(recipe, { html, url: page.originalUrl });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    const cpu = process.cpuUsage(cpuBefore);
    cpuTimes.push((cpu.user + cpu.system) / 1000);
  }
  return { runs: times, cpuRuns: cpuTimes };
}

/** Each domain's recipe as JSON, learned by `extract-learn-worker` (the thread inherits this process's `-r` aliases). */
async function learnOnAnotherThread(domains: { domain: string; pages: DatasetPage[] }[]): Promise<string[]> {
  const job: LearnJob = {
    domains: domains.map(({ domain, pages }) => ({
      domain,
      pages: pages.map((page) => ({ url: page.originalUrl, htmlFile: page.htmlFile })),
    })),
  };
  const worker = new Worker(join(__dirname, 'extract-learn-worker.js'), { workerData: job });
  try {
    return await new Promise<string[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the learning thread exited (${code}) before it answered`)));
    });
  } finally {
    await worker.terminate();
  }
}

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))];
}
