/**
 * `make bench`: Trawl against Crawlee's CheerioCrawler and against the one-process limit (a plain
 * undici breadth-first crawl) on the same generated site (big.test of the fixture web), on the same
 * machine, in the same run, with the same concurrency.
 *   node -r ./tools/register-aliases.js dist/bench/crawl-bench.js [--pages 10000] [--concurrency 64] [--rounds 3] …
 * Prints pages/s of each (median of the rounds), the ratios against their targets, pages/s by
 * quarter, peak RSS and RSS over the crawl's progress, CPU by process; writes everything to
 * bench/results/latest.json. Exits non-zero only when a crawl did not fetch the whole site (or
 * could not run), never because a target was missed.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { measureChildCrawler } from './child-crawl-bench';
import { startFixtureWebProcess, type FixtureWebProcess } from './fixture-web-process';
import { WrongCrawlError, type CrawlerMeasurement } from './measurement';
import { CRAWLERS, parseBenchOptions, type CrawlerName } from './options';
import {
  formatReport,
  formatRounds,
  formatTrawlTimings,
  limitVerdicts,
  medianRoundWithPeak,
  TARGET_RATIO,
  throughputRatio,
} from './report';
import { measureTrawl, startTrawl, warmUpTrawl, type TrawlUnderTest } from './trawl-bench';
import { onInterrupt } from './interrupt';

const RESULTS_DIR = resolve(__dirname, '..', '..', 'bench', 'results');

/** Fails the run when a crawl did not fetch exactly the site: a throughput of a wrong crawl means nothing. */
function assertWholeSite(m: CrawlerMeasurement, pages: number): void {
  const problems: string[] = [];
  if (m.pages !== pages) problems.push(`fetched ${m.pages} pages, expected ${pages}`);
  if (m.failedPages !== 0) problems.push(`${m.failedPages} pages failed`);
  if (m.crawler === 'Trawl' || m.crawler === 'Trawl (variant)') {
    if (m.details.status !== 'completed') problems.push(`ended "${String(m.details.status)}" ${JSON.stringify(m.details.error ?? '')}`);
    if (m.details.itemsFound !== pages - 1) problems.push(`found ${String(m.details.itemsFound)} items, expected ${pages - 1}`);
  }
  if (problems.length > 0) throw new WrongCrawlError(`${m.crawler} crawl is wrong: ${problems.join('; ')}`);
}

/**
 * Run order. The Trawl services start once and stay up for every round (starting them means a fresh
 * migrated database and seconds of boot), so they sit idle beside the other crawlers' turns; their
 * CPU during those turns is measured and printed (`trawlIdle`) to show what that costs the others.
 * Each crawler warms up on the same site before it is measured — Trawl once, the others in each of
 * their processes — so none pays JIT, connection-pool or cache warm-up in a measured crawl. Each
 * round starts one crawler later in the order than the round before, and the report takes medians,
 * because this 2-core machine is shared and its load drifts; a single set of crawls can land one
 * crawler in a busy minute.
 */
function roundOrder(round: number, first: CrawlerName): CrawlerName[] {
  const from = CRAWLERS.indexOf(first) + round;
  return CRAWLERS.map((_, i) => CRAWLERS[(from + i) % CRAWLERS.length]);
}

/** The Trawl services sitting idle while another crawler runs, by role. */
function idlePids(...running: (TrawlUnderTest | undefined)[]): Record<string, number> {
  return Object.fromEntries(
    running.flatMap((t, i) => (t ? Object.entries(t.pids).map(([role, pid]) => [i === 0 ? role : `${role}#${i + 1}`, pid]) : [])),
  );
}

/** What a page of the site weighs, read from page 1 (an inner page: its links are those of most pages). */
async function siteShape(web: FixtureWebProcess): Promise<{ bytes: number; links: number }> {
  const html = await new Promise<string>((resolve, reject) => {
    get({ host: '127.0.0.1', port: web.port, path: '/p/1', headers: { host: new URL(web.bigSiteUrl).host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    }).on('error', reject);
  });
  return { bytes: Buffer.byteLength(html), links: (html.match(/<a href=/g) ?? []).length };
}

async function main(args: string[]): Promise<void> {
  const options = parseBenchOptions(args);
  const cores = cpus().length;
  const cleanups = new Set<() => Promise<void>>();
  onInterrupt(() => Promise.allSettled([...cleanups].map((cleanup) => cleanup())));
  const runs = (name: CrawlerName): boolean =>
    name === 'variant' ? options.variant !== undefined : options.only === undefined || options.only.includes(name);

  const web = await startFixtureWebProcess(options.pages, options.site);
  cleanups.add(web.stop);
  const site = await siteShape(web);
  process.stderr.write(`site: ${options.pages} pages; page 1 is ${site.bytes} bytes with ${site.links} links\n`);
  const rounds: Record<CrawlerName, CrawlerMeasurement[]> = { crawlee: [], trawl: [], limit: [], variant: [] };
  let trawl: TrawlUnderTest | undefined;
  let variant: TrawlUnderTest | undefined;
  try {
    if (runs('trawl')) {
      process.stderr.write('trawl: starting gateway, coordinator and worker…\n');
      trawl = await startTrawl(web, options);
      cleanups.add(trawl.platform.stop.bind(trawl.platform));
      process.stderr.write(`trawl: warm-up crawl of ${options.warmupPages} pages…\n`);
      await warmUpTrawl(trawl, web, options);
    }
    if (options.variant) {
      process.stderr.write(`variant: starting a second Trawl with ${JSON.stringify(options.variant)}…\n`);
      variant = await startTrawl(web, options, options.variant);
      cleanups.add(variant.platform.stop.bind(variant.platform));
      await warmUpTrawl(variant, web, options);
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const crawler of roundOrder(round, options.first).filter(runs)) {
        const label = `round ${round + 1}/${options.rounds}`;
        if (crawler === 'variant') {
          process.stderr.write(`variant (${label}): measured crawl of ${options.pages} pages…\n`);
          rounds.variant.push(await measureTrawl(variant!, web, options, 'Trawl (variant)'));
        } else if (crawler !== 'trawl') {
          process.stderr.write(
            `${crawler} (${label}): warm-up crawl of ${options.warmupPages} pages, then measured crawl of ${options.pages} pages…\n`,
          );
          rounds[crawler].push(
            await measureChildCrawler(crawler === 'crawlee' ? 'Crawlee' : 'one-process limit', web, options, idlePids(trawl, variant)),
          );
        } else {
          process.stderr.write(`trawl (${label}): measured crawl of ${options.pages} pages…\n`);
          rounds.trawl.push(await measureTrawl(trawl!, web, options));
        }
        process.stderr.write(`  → ${rounds[crawler].at(-1)!.pagesPerSecond.toFixed(1)} pages/s\n`);
      }
    }
  } finally {
    cleanups.clear();
    await variant?.platform.stop();
    await trawl?.platform.stop();
    await web.stop();
  }

  const medians = CRAWLERS.filter((name) => rounds[name].length > 0).map((name) => medianRoundWithPeak(rounds[name]));
  const trawlMedian = medians.find((m) => m.crawler === 'Trawl');
  const crawleeMedian = medians.find((m) => m.crawler === 'Crawlee');
  const limitMedian = medians.find((m) => m.crawler === 'one-process limit');
  process.stdout.write(
    `\nSite: big.test, ${options.pages} pages; page 1 is ${(site.bytes / 1024).toFixed(1)} KB with ${site.links} links\n`,
  );
  process.stdout.write(`\n${formatReport(medians, options.concurrency, cores)}\n\n${formatRounds(rounds)}\n`);
  if (trawlMedian) process.stdout.write(`\n${formatTrawlTimings(trawlMedian)}\n`);

  const ratio = trawlMedian && crawleeMedian ? throughputRatio(trawlMedian, crawleeMedian) : undefined;
  mkdirSync(RESULTS_DIR, { recursive: true });
  // A run of some crawlers (--only) must not replace the whole comparison in latest.json.
  const file = join(RESULTS_DIR, options.only ? `latest-${options.only.join('-')}-${options.pages}.json` : 'latest.json');
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: { cores, cpu: cpus()[0]?.model, node: process.version },
        options,
        site,
        ratio,
        targetRatio: TARGET_RATIO,
        targetMet: ratio === undefined ? undefined : ratio >= TARGET_RATIO,
        limitVerdicts: trawlMedian && limitMedian ? limitVerdicts(trawlMedian, limitMedian) : undefined,
        rounds,
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nresults: ${file}\n`);

  // Checked after printing, so a wrong crawl's numbers are still there to read.
  for (const m of CRAWLERS.flatMap((name) => rounds[name])) assertWholeSite(m, options.pages);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`crawl-bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(error instanceof WrongCrawlError ? 2 : 1);
  },
);
