import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { applyRecipe, learnRecipe } from '@trawl/extraction';
import type { DatasetPage } from './extract-datasets';

/** Pages this close to 200 KB are the ones the target speaks of. */
const SIZE_BAND = { min: 150 * 1024, max: 250 * 1024 };
/** Runs per page; the page's time is their median (the machine is shared). */
const RUNS = 15;
/** The target: a recipe applied to a 200 KB page in under 10 ms. */
export const APPLY_TARGET_MS = 10;

export interface ApplyTimes {
  pages: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  met: boolean;
}

/**
 * How long a recipe takes to apply on a fetch worker, measured where it runs: `applyRecipe` over
 * the dataset's pages of about 200 KB (parsing included), each domain's recipe learned from its own
 * pages. The verdict takes the 95th percentile of the pages' median times.
 */
export function measureApplyTimes(pages: readonly DatasetPage[]): ApplyTimes | undefined {
  const byDomain = new Map<string, { page: DatasetPage; html: string }[]>();
  for (const page of pages) {
    const html = gunzipSync(readFileSync(page.htmlFile)).toString('utf8');
    byDomain.set(page.domain, [...(byDomain.get(page.domain) ?? []), { page, html }]);
  }
  const times: number[] = [];
  for (const [domain, domainPages] of byDomain) {
    const sized = domainPages.filter(({ html }) => Buffer.byteLength(html) >= SIZE_BAND.min && Buffer.byteLength(html) <= SIZE_BAND.max);
    if (sized.length === 0) continue;
    const { recipe } = learnRecipe({ domain, version: 1, pages: domainPages.map(({ page, html }) => ({ url: page.originalUrl, html })) });
    for (const { page, html } of sized) {
      const runs: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = process.hrtime.bigint();
        applyRecipe(recipe, { html, url: page.originalUrl });
        runs.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      times.push(percentile(runs, 0.5));
    }
  }
  if (times.length === 0) return undefined;
  const p95 = percentile(times, 0.95);
  return { pages: times.length, p50Ms: percentile(times, 0.5), p95Ms: p95, maxMs: Math.max(...times), met: p95 < APPLY_TARGET_MS };
}

function percentile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * (sorted.length - 1)))];
}
