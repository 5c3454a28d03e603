import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CrawleeCrawlResult } from './crawlee-crawl';
import type { FixtureWebProcess } from './fixture-web-process';
import type { CrawlerMeasurement } from './measurement';
import type { BenchOptions } from './options';
import { MachineCpuMeter, ResourceMeter, type ProcessUsage } from './resource-meter';

/**
 * Runs Crawlee's CheerioCrawler over the generated site in its own process (crawlee-crawl.ts): a
 * warm-up crawl, then the measured one, sampled like the Trawl services. `idleTrawl`: processes of
 * the Trawl services sitting idle meanwhile, whose CPU time is reported as `trawlIdle`.
 */
export async function measureCrawlee(
  web: FixtureWebProcess,
  options: BenchOptions,
  idleTrawl: Record<string, number> = {},
): Promise<CrawlerMeasurement> {
  const child = spawn(
    process.execPath,
    [
      join(__dirname, 'crawlee-crawl.js'),
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
    const result = await new Promise<CrawleeCrawlResult>((resolve, reject) => {
      let settled: CrawleeCrawlResult | undefined;
      createInterface({ input: child.stdout! }).on('line', (line) => {
        let message: { phase?: string; result?: CrawleeCrawlResult };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          return; // not ours: a library's stray console output
        }
        if (message.phase === 'measuring') {
          meter = new ResourceMeter({
            crawlee: child.pid!,
            fixtureWeb: web.pid,
            ...Object.fromEntries(Object.entries(idleTrawl).map(([role, pid]) => [`idle:${role}`, pid])),
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
              `Crawlee crawl exited with ${code ?? signal}${signal === 'SIGKILL' ? ` (timeout ${options.timeoutSeconds} s?)` : ''}`,
            ),
          );
      });
    });
    const crawlee = usage?.crawlee;
    return {
      crawler: 'Crawlee',
      pages: result.handled,
      failedPages: result.failed,
      seconds: result.seconds,
      pagesPerSecond: result.handled / result.seconds,
      peakRssBytes: { worker: Math.max(result.maxRssBytes, crawlee?.peakRssBytes ?? 0) },
      progressMemory: result.progressRssBytes.map(({ percent, rssBytes }) => ({ percent, rssBytes: { crawlee: rssBytes } })),
      cpuSeconds: {
        crawlee: result.cpuSeconds,
        fixtureWeb: usage?.fixtureWeb.cpuSeconds ?? 0,
        ...(Object.keys(idleTrawl).length > 0
          ? { trawlIdle: Object.keys(idleTrawl).reduce((sum, role) => sum + (usage?.[`idle:${role}`]?.cpuSeconds ?? 0), 0) }
          : {}),
        wholeMachine: machineBusy,
      },
      details: {
        meanConcurrency: result.meanConcurrency,
        settings: { minConcurrency: options.concurrency, maxConcurrency: options.concurrency, maxRequestsPerCrawl: options.pages + 10 },
        rssSamples: crawlee?.samples.map((s) => [s.atMs, s.rssBytes]),
      },
    };
  } finally {
    clearTimeout(timeout);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}
