import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { applyRecipe, learnRecipe } from '@trawl/extraction';
import type { DatasetPage } from './extract-datasets';

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
 * pages. Warm: each page's median of 15 runs; cold: each page's first run. The verdict takes the
 * 95th percentile of both.
 */
export function measureApplyTimes(pages: readonly DatasetPage[]): ApplyTimes | undefined {
  const byDomain = new Map<string, { page: DatasetPage; html: string }[]>();
  for (const page of pages) {
    const html = gunzipSync(readFileSync(page.htmlFile)).toString('utf8');
    byDomain.set(page.domain, [...(byDomain.get(page.domain) ?? []), { page, html }]);
  }
  const warm: number[] = [];
  const cold: number[] = [];
  const warmCpu: number[] = [];
  for (const [domain, domainPages] of byDomain) {
    const sized = domainPages.filter(({ html }) => Buffer.byteLength(html) >= SIZE_BAND.min && Buffer.byteLength(html) <= SIZE_BAND.max);
    if (sized.length === 0) continue;
    const { recipe } = learnRecipe({ domain, version: 1, pages: domainPages.map(({ page, html }) => ({ url: page.originalUrl, html })) });
    for (const { page, html } of sized) {
      const runs: number[] = [];
      const cpuRuns: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const cpuBefore = process.cpuUsage();
        const started = process.hrtime.bigint();
        applyRecipe(recipe, { html, url: page.originalUrl });
        runs.push(Number(process.hrtime.bigint() - started) / 1e6);
        const cpu = process.cpuUsage(cpuBefore);
        cpuRuns.push((cpu.user + cpu.system) / 1000);
      }
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
  return { pages: warm.length, warm: summary(warm), cold: summary(cold), warmCpu: summary(warmCpu) };
}

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))];
}
