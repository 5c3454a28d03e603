/**
 * The Crawlee side of the benchmark, run as its own process by crawlee-bench.ts (so its memory and
 * CPU are its own, like each Trawl service's):
 *   node dist/bench/crawlee-crawl.js --url <u> --pages <n> --concurrency <c> --warmup-pages <w> --host-map <map>
 * Prints `{"phase":"measuring"}` when the measured crawl starts and one `{"result":…}` line at the end.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { performance } from 'node:perf_hooks';
import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';

/** What the measured Crawlee crawl did, as printed on the `result` line. */
export interface CrawleeCrawlResult {
  /** Requests handled successfully (pages fetched and parsed). */
  handled: number;
  /** Requests that failed after Crawlee's retries. */
  failed: number;
  /** From `crawler.run()` to its end. */
  seconds: number;
  /** Resident memory when 25, 50, 75 and 100 % of the expected pages were handled. */
  progressRssBytes: { percent: number; rssBytes: number }[];
  /** Peak resident memory of this process since it started (warm-up included), in bytes. */
  maxRssBytes: number;
  /** CPU seconds (user + system) of this process during the measured crawl. */
  cpuSeconds: number;
  /** Mean of the autoscaled pool's running tasks, sampled every 100 ms: shows the crawl really ran at C. */
  meanConcurrency: number;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A DNS lookup that answers the fixture hosts from the `host=address` map and everything else from
 * the system, like Trawl's `EGRESS_HOST_MAP`. Given to got through `dnsLookup` (Crawlee's own option
 * path), so nothing global is patched and the crawl really connects through it.
 */
function mappedLookup(hostMap: string): (hostname: string, options: LookupOptions, callback: LookupCallback) => void {
  const addresses = new Map(
    hostMap
      .split(',')
      .filter(Boolean)
      .map((entry) => entry.split('=') as [string, string]),
  );
  return (hostname, options, callback) => {
    const address = addresses.get(hostname.toLowerCase());
    if (address === undefined) {
      systemLookup(hostname, options, callback as never);
      return;
    }
    const family = address.includes(':') ? 6 : 4;
    if (options.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

function argument(args: string[], name: string): string {
  const at = args.indexOf(name);
  if (at < 0 || args[at + 1] === undefined) throw new Error(`missing ${name}`);
  return args[at + 1];
}

async function crawl(
  url: string,
  maxRequests: number,
  concurrency: number,
  lookup: ReturnType<typeof mappedLookup>,
  onHandled: (handled: number) => void = () => undefined,
): Promise<{ handled: number; failed: number; seconds: number; meanConcurrency: number }> {
  // Fresh in-memory storage per crawl: the measured crawl must not inherit the warm-up's queue.
  const config = new Configuration({ persistStorage: false, purgeOnStart: true });
  let handled = 0;
  const crawler = new CheerioCrawler(
    {
      // min = max = C, so no system-load heuristic holds the pool below C. It still averages ~10 running
      // tasks on this site: each page costs the one JavaScript thread ~4 ms of CPU (validation, got,
      // cheerio, the request queue), the thread is saturated, and tasks finish as fast as new ones
      // start. Measured: 8, 16, 64 and 200 give the same pages/s, so C is not what limits Crawlee here.
      minConcurrency: concurrency,
      maxConcurrency: concurrency,
      maxRequestsPerCrawl: maxRequests,
      preNavigationHooks: [
        (_context, gotOptions) => {
          gotOptions.dnsLookup = lookup as never;
        },
      ],
      async requestHandler({ enqueueLinks }) {
        await enqueueLinks({ strategy: 'same-domain' });
        onHandled(++handled);
      },
    },
    config,
  );
  const concurrencySamples: number[] = [];
  const sampler = setInterval(() => concurrencySamples.push(crawler.autoscaledPool?.currentConcurrency ?? 0), 100);
  const startedAt = performance.now();
  const stats = await crawler.run([url]);
  const seconds = (performance.now() - startedAt) / 1000;
  clearInterval(sampler);
  const meanConcurrency = concurrencySamples.reduce((a, b) => a + b, 0) / Math.max(1, concurrencySamples.length);
  return { handled: stats.requestsFinished, failed: stats.requestsFailed, seconds, meanConcurrency };
}

async function main(args: string[]): Promise<void> {
  log.setLevel(LogLevel.OFF);
  const url = argument(args, '--url');
  const pages = Number(argument(args, '--pages'));
  const concurrency = Number(argument(args, '--concurrency'));
  const warmupPages = Number(argument(args, '--warmup-pages'));
  const lookup = mappedLookup(argument(args, '--host-map'));

  if (warmupPages > 0) await crawl(url, warmupPages, concurrency, lookup);

  const marks = [25, 50, 75, 100].map((percent) => ({ percent, at: Math.ceil((pages * percent) / 100) }));
  const progressRssBytes: CrawleeCrawlResult['progressRssBytes'] = [];
  process.stdout.write(`${JSON.stringify({ phase: 'measuring' })}\n`);
  const cpuAtStart = process.cpuUsage();
  const measured = await crawl(url, pages + 10, concurrency, lookup, (handled) => {
    for (const mark of marks)
      if (mark.at === handled) progressRssBytes.push({ percent: mark.percent, rssBytes: process.memoryUsage.rss() });
  });
  const cpu = process.cpuUsage(cpuAtStart);
  const result: CrawleeCrawlResult = {
    ...measured,
    progressRssBytes,
    maxRssBytes: process.resourceUsage().maxRSS * 1024,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
  };
  process.stdout.write(`${JSON.stringify({ result })}\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`crawlee crawl: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
