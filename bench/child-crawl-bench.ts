import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ChildCrawlResult } from './child-crawl';
import type { FixtureWebProcess } from './fixture-web-process';
import type { CrawlerMeasurement } from './measurement';
import type { BenchOptions } from './options';
import { MachineCpuMeter, ResourceMeter, type ProcessUsage } from './resource-meter';

/** The crawlers the bench runs as processes of their own, by the script each runs (see child-crawl.ts). */
const CHILD_CRAWLERS = {
  Crawlee: { script: 'crawlee-crawl.js', role: 'crawlee' },
  'one-process limit': { script: 'one-process-crawl.js', role: 'limit' },
} as const;

export type ChildCrawler = keyof typeof CHILD_CRAWLERS;

/**
 * Runs a crawler over the generated site in its own process: a warm-up crawl, then the measured
 * one, sampled like the Trawl services. `idleTrawl`: processes of the Trawl services sitting idle
 * meanwhile, whose CPU time is reported as `trawlIdle`.
 */
export async function measureChildCrawler(
  crawler: ChildCrawler,
  web: FixtureWebProcess,
  options: BenchOptions,
  idleTrawl: Record<string, number> = {},
): Promise<CrawlerMeasurement> {
  const { script, role } = CHILD_CRAWLERS[crawler];
  const child = spawn(
    process.execPath,
    [
      join(__dirname, script),
      ...['--url', web.bigSiteUrl, '--pages', String(options.pages), '--concurrency', String(options.concurrency)],
      ...['--warmup-pages', String(options.warmupPages), '--host-map', web.hostMap],
    ],
    // Crawlee writes its in-memory storage nowhere, but keep any stray file out of the repository.
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, CRAWLEE_STORAGE_DIR: join('/tmp', `crawlee-bench-${process.pid}`) } },
  );
  let meter: ResourceMeter | undefined;
  let usage: Record<string, ProcessUsage> | undefined;
  const machine = new MachineCpuMeter();
  let machineBusy = 0;
  const timeout = setTimeout(() => child.kill('SIGKILL'), options.timeoutSeconds * 1000);
  try {
    const result = await new Promise<ChildCrawlResult>((resolve, reject) => {
      let settled: ChildCrawlResult | undefined;
      createInterface({ input: child.stdout! }).on('line', (line) => {
        let message: { phase?: string; result?: ChildCrawlResult };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          return; // not ours: a library's stray console output
        }
        if (message.phase === 'measuring') {
          meter = new ResourceMeter({
            [role]: child.pid!,
            fixtureWeb: web.pid,
            ...Object.fromEntries(Object.entries(idleTrawl).map(([service, pid]) => [`idle:${service}`, pid])),
          });
          meter.start();
          machine.start();
        }
        if (message.result) {
          settled = message.result;
          // The process exits right after this line, so its own figures (peak RSS, CPU) are the reliable ones.
          usage = meter?.stop();
          machineBusy = machine.stop();
        }
      });
      child.once('exit', (code, signal) => {
        if (settled && code === 0) resolve(settled);
        else
          reject(
            new Error(
              `${crawler} crawl exited with ${code ?? signal}${signal === 'SIGKILL' ? ` (timeout ${options.timeoutSeconds} s?)` : ''}`,
            ),
          );
      });
    });
    const own = usage?.[role];
    return {
      crawler,
      pages: result.handled,
      failedPages: result.failed,
      seconds: result.seconds,
      pagesPerSecond: result.handled / result.seconds,
      peakRssBytes: { worker: Math.max(result.maxRssBytes, own?.peakRssBytes ?? 0) },
      progress: result.progress.map(({ percent, rssBytes, atSeconds }) => ({ percent, atSeconds, rssBytes: { [role]: rssBytes } })),
      cpuSeconds: {
        [role]: result.cpuSeconds,
        fixtureWeb: usage?.fixtureWeb.cpuSeconds ?? 0,
        ...(Object.keys(idleTrawl).length > 0
          ? { trawlIdle: Object.keys(idleTrawl).reduce((sum, service) => sum + (usage?.[`idle:${service}`]?.cpuSeconds ?? 0), 0) }
          : {}),
        wholeMachine: machineBusy,
      },
      details: {
        meanConcurrency: result.meanConcurrency,
        settings: { concurrency: options.concurrency, maxRequests: options.pages + 10 },
        rssSamples: own?.samples.map((s) => [s.atMs, s.rssBytes]),
      },
    };
  } finally {
    clearTimeout(timeout);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
