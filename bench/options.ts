import { resolve } from 'node:path';
import type { BigSiteShape } from '../test/fixtures/web/sites/big';
import { cpuProfileEnv } from './cpu-profile-env';

/** What one `make bench` run measures; every field has a command-line flag. */
export interface BenchOptions {
  /** Pages of the generated site, all of which both crawlers must fetch (`--pages`, default 10,000; at least 5,000 for the published comparison). */
  pages: number;
  /** In-flight page fetches of each crawler (`--concurrency`, default 64): Crawlee's min = max concurrency, Trawl's `WORKER_CONCURRENCY`. */
  concurrency: number;
  /**
   * Pages of the warm-up crawl each crawler runs before it is measured (`--warmup-pages`, default 2,000;
   * 0 skips it). Measured: after 300 pages Trawl's first rounds still cost ~2.2 ms of CPU a page, after
   * 2,000 ~1.45–1.9 ms (JIT, and Postgres on a database created for the run); Crawlee gains a little too.
   */
  warmupPages: number;
  /** Longest a measured crawl may take before the run fails, in seconds (`--timeout`, default 900). */
  timeoutSeconds: number;
  /** `LOG_LEVEL` of the Trawl services (`--log-level`, default `warn`, since Crawlee's log is off). */
  logLevel: string;
  /** Extra environment for every Trawl service (`--set KEY=VALUE`, repeatable), e.g. `--set RESULT_BATCH=512`. */
  serviceEnv: Record<string, string>;
  /**
   * Measured crawls of each crawler (`--rounds`, default 3); the report takes each one's median round.
   * Rounds alternate which crawler goes first.
   */
  rounds: number;
  /** Which crawler runs first in the first round (`--first crawlee|trawl|limit`, default `crawlee`); the others follow in turn. */
  first: CrawlerName;
  /**
   * The crawlers measured (`--only`, comma-separated, e.g. `trawl` while tuning it or `trawl,limit`
   * for the long crawl; default all three): a ratio is printed only when both its sides ran.
   */
  only?: CrawlerName[];
  /**
   * CPU profiles of the Trawl services (`--profile DIR`, see tools/cpu-profile.js), restarted when
   * each measured crawl starts, written when the services stop.
   */
  profileDir?: string;
  /**
   * Weight of the site's pages: characters of filler text (`--filler-bytes`, default 2,000: ~2.5 KB
   * pages) and links per page (`--links`, default: the 13 structural ones of an inner page).
   */
  site: BigSiteShape;
  /**
   * A second Trawl, its services given these variables on top (`--variant KEY=VALUE`, repeatable),
   * measured in the same rounds as the first: an A/B of a setting on one machine in one run, where
   * runs apart differ by ±10 %.
   */
  variant?: Record<string, string>;
  /**
   * How often the JetStream queues and the services' in-flight gauges are sampled during a measured
   * Trawl crawl, in ms (`--sample-ms`, default 500); every sample is in the results file. At 50 the
   * samples show stalls shorter than a poll (a dispatcher waiting out its 250 ms was found so).
   */
  sampleMs: number;
}

/** Crawlee's CheerioCrawler, Trawl, the one-process limit (a plain undici breadth-first crawl), and Trawl's `--variant`. */
export const CRAWLERS = ['crawlee', 'trawl', 'limit', 'variant'] as const;
export type CrawlerName = (typeof CRAWLERS)[number];

function crawlerName(flag: string, raw: string | undefined): CrawlerName {
  const name = CRAWLERS.find((crawler) => crawler === raw);
  if (!name) throw new Error(`${flag} needs one of ${CRAWLERS.join(', ')}, got "${raw ?? ''}"\n${USAGE}`);
  return name;
}

const USAGE =
  'usage: crawl-bench [--pages <n>] [--concurrency <n>] [--rounds <n>] [--warmup-pages <n>] [--timeout <s>] ' +
  '[--log-level <level>] [--set KEY=VALUE]… [--first crawlee|trawl|limit] [--only crawlee,trawl,limit] [--profile DIR] ' +
  '[--filler-bytes <n>] [--links <n>] [--variant KEY=VALUE]… [--sample-ms <n>]';

/** `KEY=VALUE` as `{ KEY: VALUE }` (a service variable of `--set` or `--variant`). */
function keyValue(flag: string, raw: string | undefined): Record<string, string> {
  const eq = raw?.indexOf('=') ?? -1;
  if (!raw || eq < 1) throw new Error(`${flag} needs KEY=VALUE, got "${raw ?? ''}"\n${USAGE}`);
  return { [raw.slice(0, eq)]: raw.slice(eq + 1) };
}

function positiveInteger(flag: string, raw: string | undefined, min: number): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${flag} needs an integer ≥ ${min}, got "${raw ?? ''}"\n${USAGE}`);
  return value;
}

/** Parses the bench's command line; throws with the usage on anything it does not know. */
export function parseBenchOptions(args: readonly string[]): BenchOptions {
  const options: BenchOptions = {
    pages: 10_000,
    concurrency: 64,
    warmupPages: 2_000,
    timeoutSeconds: 900,
    logLevel: 'warn',
    serviceEnv: {},
    rounds: 3,
    first: 'crawlee',
    site: {},
    sampleMs: 500,
  };
  for (let i = 0; i < args.length; i += 2) {
    const flag = args[i];
    const value = args[i + 1];
    switch (flag) {
      case '--pages':
        options.pages = positiveInteger(flag, value, 2);
        break;
      case '--concurrency':
        options.concurrency = positiveInteger(flag, value, 1);
        break;
      case '--warmup-pages':
        options.warmupPages = positiveInteger(flag, value, 0);
        break;
      case '--rounds':
        options.rounds = positiveInteger(flag, value, 1);
        break;
      case '--timeout':
        options.timeoutSeconds = positiveInteger(flag, value, 1);
        break;
      case '--log-level':
        if (!value) throw new Error(`--log-level needs a value\n${USAGE}`);
        options.logLevel = value;
        break;
      case '--set':
        Object.assign(options.serviceEnv, keyValue(flag, value));
        break;
      case '--first':
        options.first = crawlerName(flag, value);
        break;
      case '--filler-bytes':
        options.site.fillerBytes = positiveInteger(flag, value, 0);
        break;
      case '--links':
        options.site.links = positiveInteger(flag, value, 0);
        break;
      case '--sample-ms':
        options.sampleMs = positiveInteger(flag, value, 10);
        break;
      case '--variant':
        options.variant = { ...options.variant, ...keyValue(flag, value) };
        break;
      case '--profile':
        if (!value) throw new Error(`--profile needs a folder\n${USAGE}`);
        options.profileDir = resolve(value);
        Object.assign(options.serviceEnv, cpuProfileEnv(value));
        break;
      case '--only':
        options.only = [...new Set((value ?? '').split(',').map((name) => crawlerName(flag, name)))];
        break;
      default:
        throw new Error(`unknown option "${flag}"\n${USAGE}`);
    }
  }
  return options;
}
