/**
 * `make bench`: Trawl against Crawlee's CheerioCrawler on the same generated site (big.test of the
 * fixture web), on the same machine, in the same run, with the same concurrency.
 *   node -r ./tools/register-aliases.js dist/bench/crawl-bench.js [--pages 10000] [--concurrency 64] …
 * Prints pages/s of both, their ratio against the 3× target, peak RSS and RSS over the crawl's
 * progress, CPU by process; writes everything to bench/results/latest.json. Exits non-zero only when
 * a crawl did not fetch the whole site (or could not run), never because the target was missed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { measureCrawlee } from './crawlee-bench';
import { registerEsmAliases } from './esm-aliases';
import { startFixtureWebProcess, type FixtureWebProcess } from './fixture-web-process';
import { WrongCrawlError, type CrawlerMeasurement } from './measurement';
import { parseBenchOptions, type BenchOptions } from './options';
import { formatReport, formatTrawlTimings, TARGET_RATIO, throughputRatio } from './report';
import { measureTrawl, startTrawl, warmUpTrawl, type TrawlUnderTest } from './trawl-bench';

const RESULTS_DIR = resolve(__dirname, '..', '..', 'bench', 'results');

/** Fails the run when a crawl did not fetch exactly the site: a throughput of a wrong crawl means nothing. */
function assertWholeSite(m: CrawlerMeasurement, pages: number): void {
  const problems: string[] = [];
  if (m.pages !== pages) problems.push(`fetched ${m.pages} pages, expected ${pages}`);
  if (m.failedPages !== 0) problems.push(`${m.failedPages} pages failed`);
  if (m.crawler === 'Trawl') {
    if (m.details.status !== 'completed') problems.push(`ended "${String(m.details.status)}" ${JSON.stringify(m.details.error ?? '')}`);
    if (m.details.itemsFound !== pages - 1) problems.push(`found ${String(m.details.itemsFound)} items, expected ${pages - 1}`);
  }
  if (problems.length > 0) throw new WrongCrawlError(`${m.crawler} crawl is wrong: ${problems.join('; ')}`);
}

async function runTrawl(web: FixtureWebProcess, options: BenchOptions, cleanups: Set<() => Promise<void>>): Promise<CrawlerMeasurement> {
  process.stderr.write('trawl: starting gateway, coordinator and worker…\n');
  const trawl: TrawlUnderTest = await startTrawl(web, options);
  const stop = (): Promise<void> => trawl.platform.stop();
  cleanups.add(stop);
  try {
    process.stderr.write(`trawl: warm-up crawl of ${options.warmupPages} pages…\n`);
    await warmUpTrawl(trawl, web, options);
    process.stderr.write(`trawl: measured crawl of ${options.pages} pages…\n`);
    return await measureTrawl(trawl, web, options);
  } finally {
    cleanups.delete(stop);
    await stop();
  }
}

async function main(args: string[]): Promise<void> {
  const options = parseBenchOptions(args);
  registerEsmAliases();
  const cores = cpus().length;
  const cleanups = new Set<() => Promise<void>>();
  process.once('SIGINT', () => {
    void Promise.allSettled([...cleanups].map((cleanup) => cleanup())).then(() => process.exit(130));
  });

  const web = await startFixtureWebProcess(options.pages);
  cleanups.add(web.stop);
  const measurements: CrawlerMeasurement[] = [];
  try {
    // Order: each crawler first runs a warm-up crawl of the same site (JIT, connection pools, Postgres
    // caches, the fixture web's own warm-up), so neither pays cold-start costs in its measured crawl.
    // Crawlee goes first by default because the Trawl services exist only during Trawl's turn: Crawlee
    // then has the machine to itself, with no idle service (reconciler timers, NATS heartbeats) beside
    // it. That can only favour Crawlee, the safe direction for a "Trawl ≥ 3×" claim. `--first trawl`
    // swaps the order to check that it does not matter.
    const order = options.first === 'crawlee' ? (['crawlee', 'trawl'] as const) : (['trawl', 'crawlee'] as const);
    for (const crawler of order.filter((c) => options.only === undefined || c === options.only)) {
      if (crawler === 'crawlee') {
        process.stderr.write(`crawlee: warm-up crawl of ${options.warmupPages} pages, then measured crawl of ${options.pages} pages…\n`);
        measurements.push(await measureCrawlee(web, options));
      } else {
        measurements.push(await runTrawl(web, options, cleanups));
      }
    }
  } finally {
    cleanups.delete(web.stop);
    await web.stop();
  }

  const trawl = measurements.find((m) => m.crawler === 'Trawl');
  const crawlee = measurements.find((m) => m.crawler === 'Crawlee');
  process.stdout.write(`\n${formatReport(measurements, options.concurrency, cores)}\n`);
  if (trawl) process.stdout.write(`\n${formatTrawlTimings(trawl)}\n`);

  const ratio = trawl && crawlee ? throughputRatio(trawl, crawlee) : undefined;
  mkdirSync(RESULTS_DIR, { recursive: true });
  // A one-crawler run (--only) must not replace the comparison in latest.json.
  const file = join(RESULTS_DIR, options.only ? `latest-${options.only}.json` : 'latest.json');
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: { cores, cpu: cpus()[0]?.model, node: process.version },
        options,
        ratio,
        targetRatio: TARGET_RATIO,
        targetMet: ratio === undefined ? undefined : ratio >= TARGET_RATIO,
        measurements,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nresults: ${file}\n`);

  // Checked after printing, so a wrong crawl's numbers are still there to read.
  for (const m of measurements) assertWholeSite(m, options.pages);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`crawl-bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(error instanceof WrongCrawlError ? 2 : 1);
  },
);
