/**
 * The Crawlee side of the crawl bench, run as its own process (so its memory and CPU are its own,
 * like each Trawl service's); see child-crawl.ts for its command line and output:
 *   node dist/bench/crawlee-crawl.js --url <u> --pages <n> --concurrency <c> --warmup-pages <w> --host-map <map>
 */
import { performance } from 'node:perf_hooks';
import { CheerioCrawler, Configuration, log, LogLevel } from '@crawlee/cheerio';
import { runChildCrawl, type ChildCrawl } from './child-crawl';

const crawl: ChildCrawl = async (url, maxRequests, concurrency, lookup, onHandled) => {
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
          // got's own option path (Crawlee's): the fixture hosts resolve without patching anything global.
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
};

log.setLevel(LogLevel.OFF);
runChildCrawl('crawlee crawl', crawl);
