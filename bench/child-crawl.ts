/**
 * What a crawler run as its own process by the crawl bench (Crawlee's, the one-process limit's)
 * shares: its command line, the DNS answers for the fixture hosts, and the lines it prints:
 * `{"phase":"measuring"}` when the measured crawl starts, one `{"result":…}` line at the end.
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { performance } from 'node:perf_hooks';

/** What the measured crawl of a child crawler did, as printed on the `result` line. */
export interface ChildCrawlResult {
  /** Pages fetched (and parsed) successfully. */
  handled: number;
  /** Pages that failed for good. */
  failed: number;
  /** From the crawl's start to its end. */
  seconds: number;
  /** Resident memory and seconds since the start when 25, 50, 75 and 100 % of the expected pages were handled. */
  progress: { percent: number; rssBytes: number; atSeconds: number }[];
  /** Peak resident memory of this process since it started (warm-up included), in bytes. */
  maxRssBytes: number;
  /** CPU seconds (user + system) of this process during the measured crawl. */
  cpuSeconds: number;
  /** Mean pages in flight, sampled every 100 ms: shows the crawl really ran at C. */
  meanConcurrency: number;
}

/** One crawl of the site: at most `maxRequests` pages, `concurrency` at a time; `onHandled` after each page. */
export type ChildCrawl = (
  url: string,
  maxRequests: number,
  concurrency: number,
  lookup: MappedLookup,
  onHandled: (handled: number) => void,
) => Promise<{ handled: number; failed: number; seconds: number; meanConcurrency: number }>;

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type MappedLookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A DNS lookup that answers the fixture hosts from the `host=address` map and everything else from
 * the system, like Trawl's `EGRESS_HOST_MAP`: given to the crawler's HTTP client, so nothing global
 * is patched and the crawl really connects through it.
 */
export function mappedLookup(hostMap: string): MappedLookup {
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

/**
 * The child's main: `--url <u> --pages <n> --concurrency <c> --warmup-pages <w> --host-map <map>`.
 * A warm-up crawl, then the measured one, reported on stdout; exits non-zero on an error.
 */
export function runChildCrawl(name: string, crawl: ChildCrawl): void {
  const main = async (args: string[]): Promise<void> => {
    const url = argument(args, '--url');
    const pages = Number(argument(args, '--pages'));
    const concurrency = Number(argument(args, '--concurrency'));
    const warmupPages = Number(argument(args, '--warmup-pages'));
    const lookup = mappedLookup(argument(args, '--host-map'));

    if (warmupPages > 0) await crawl(url, warmupPages, concurrency, lookup, () => undefined);

    const marks = [25, 50, 75, 100].map((percent) => ({ percent, at: Math.ceil((pages * percent) / 100) }));
    const progress: ChildCrawlResult['progress'] = [];
    process.stdout.write(`${JSON.stringify({ phase: 'measuring' })}\n`);
    const cpuAtStart = process.cpuUsage();
    const startedAt = performance.now();
    const measured = await crawl(url, pages + 10, concurrency, lookup, (handled) => {
      for (const mark of marks) {
        if (mark.at === handled) {
          progress.push({ percent: mark.percent, rssBytes: process.memoryUsage.rss(), atSeconds: (performance.now() - startedAt) / 1000 });
        }
      }
    });
    const cpu = process.cpuUsage(cpuAtStart);
    const result: ChildCrawlResult = {
      ...measured,
      progress,
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
    };
    process.stdout.write(`${JSON.stringify({ result })}\n`);
  };
  main(process.argv.slice(2)).then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${name}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
