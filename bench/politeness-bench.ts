/**
 * Per-host politeness (issue 33, point 4): crawl pages/s with the limits off is what it was before
 * the per-host gate existed, and with a rate limit on, the crawl runs at that rate. In one run on
 * the same site: Trawl without the gate (HOST_BACKOFF=false, no limits: the engines unwrapped, as
 * before), Trawl as installed (back-off on, no limits), Trawl with a concurrency limit that never
 * binds (what counting every load in the shared record costs), rounds alternating; then Trawl with
 * HOST_RATE_LIMIT on a smaller site. Prints the table and the verdicts, writes
 * bench/results/politeness.json.
 *
 *   node -r ./tools/register-aliases.js dist/bench/politeness-bench.js [--pages 3000] [--rounds 5] [--rate 50] [--rate-pages 500]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { startFixtureWebProcess, type FixtureWebProcess } from './fixture-web-process';
import type { CrawlerMeasurement } from './measurement';
import { parseBenchOptions, type BenchOptions } from './options';
import { table } from './report';
import { measureTrawl, startTrawl, warmUpTrawl, type TrawlUnderTest } from './trawl-bench';

const RESULTS_DIR = resolve(__dirname, '..', '..', 'bench', 'results');
/** "Unchanged": the installed default within this share of the build without the gate (a run's noise is ±5 %). */
const UNCHANGED_SHARE = 0.95;
/** "The expected rate": between these shares of HOST_RATE_LIMIT (polling the crawl's end costs a little). */
const RATE_SHARE = { min: 0.9, max: 1.02 };

interface Config {
  name: string;
  env: Record<string, string>;
}

const CONFIGS: Config[] = [
  { name: 'no gate (HOST_BACKOFF=false, no limits)', env: { HOST_BACKOFF: 'false', HOST_CONCURRENCY_LIMIT: '0', HOST_RATE_LIMIT: '0' } },
  { name: 'installed default (back-off on, no limits)', env: {} },
  { name: 'HOST_CONCURRENCY_LIMIT=10000 (on, never binding)', env: { HOST_CONCURRENCY_LIMIT: '10000' } },
];

function flag(args: string[], name: string, fallback: number): number {
  const at = args.indexOf(name);
  if (at === -1) return fallback;
  const value = Number(args[at + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} needs a positive number`);
  return value;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

async function measureRate(web: FixtureWebProcess, options: BenchOptions, rate: number): Promise<CrawlerMeasurement> {
  const trawl = await startTrawl(web, options, { HOST_RATE_LIMIT: String(rate) });
  try {
    return await measureTrawl(trawl, web, options, 'Trawl (variant)');
  } finally {
    await trawl.platform.stop();
  }
}

async function main(args: string[]): Promise<void> {
  const pages = flag(args, '--pages', 3_000);
  const rounds = flag(args, '--rounds', 5);
  const rate = flag(args, '--rate', 50);
  const ratePages = flag(args, '--rate-pages', 500);
  const options = parseBenchOptions(['--pages', String(pages), '--concurrency', '32', '--warmup-pages', '500']);
  const web = await startFixtureWebProcess(pages);
  const running: TrawlUnderTest[] = [];
  const measured = new Map<string, CrawlerMeasurement[]>(CONFIGS.map((config) => [config.name, []]));
  let rateMeasurement: CrawlerMeasurement;
  try {
    for (const config of CONFIGS) {
      process.stderr.write(`politeness: starting Trawl, ${config.name}…\n`);
      const trawl = await startTrawl(web, options, config.env);
      running.push(trawl);
      await warmUpTrawl(trawl, web, options);
    }
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < CONFIGS.length; i++) {
        const at = (i + round) % CONFIGS.length;
        const result = await measureTrawl(running[at], web, options);
        measured.get(CONFIGS[at].name)!.push(result);
        process.stderr.write(`  round ${round + 1}, ${CONFIGS[at].name}: ${result.pagesPerSecond.toFixed(0)} pages/s\n`);
      }
    }
    await Promise.all(running.splice(0).map((trawl) => trawl.platform.stop()));
    await web.stop();
    process.stderr.write(`politeness: HOST_RATE_LIMIT=${rate} on a ${ratePages}-page site…\n`);
    const small = await startFixtureWebProcess(ratePages);
    try {
      rateMeasurement = await measureRate(small, { ...options, pages: ratePages, warmupPages: 0 }, rate);
    } finally {
      await small.stop();
    }
  } finally {
    await Promise.all(running.map((trawl) => trawl.platform.stop()));
    await web.stop();
  }

  const medians = CONFIGS.map((config) => median(measured.get(config.name)!.map((m) => m.pagesPerSecond)));
  const [without, installed, counted] = medians;
  const rateShare = rateMeasurement.pagesPerSecond / rate;
  const rows = [
    ...CONFIGS.map((config, i) => [config.name, `${pages}`, medians[i].toFixed(1), (medians[i] / without).toFixed(3), '']),
    [
      `HOST_RATE_LIMIT=${rate}`,
      `${ratePages}`,
      rateMeasurement.pagesPerSecond.toFixed(1),
      '',
      `${(rateShare * 100).toFixed(1)} % of ${rate}/s`,
    ],
  ];
  process.stdout.write(
    `\nPer-host politeness, crawl of big.test at concurrency 32 (${cpus().length} cores; median of ${rounds} rounds, alternating)\n\n` +
      `${table(['Trawl', 'pages', 'pages/s', 'vs no gate', 'rate'], rows)}\n\n`,
  );
  const unchanged = installed / without >= UNCHANGED_SHARE;
  const atRate = rateShare >= RATE_SHARE.min && rateShare <= RATE_SHARE.max;
  process.stdout.write(
    `Verdicts (issue 33, point 4):\n` +
      `  limits off, pages/s unchanged (installed ≥ ${UNCHANGED_SHARE * 100} % of no gate): ${(100 * (installed / without)).toFixed(1)} % — ${unchanged ? 'met' : 'NOT MET'}\n` +
      `  rate limit on, crawl at the expected rate (${RATE_SHARE.min * 100}–${RATE_SHARE.max * 100} % of ${rate}/s): ${(rateShare * 100).toFixed(1)} % — ${atRate ? 'met' : 'NOT MET'}\n` +
      `  (for the record) a limit on that never binds: ${(100 * (counted / without)).toFixed(1)} % of no gate\n`,
  );
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = join(RESULTS_DIR, 'politeness.json');
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        at: new Date().toISOString(),
        machine: { cores: cpus().length, cpu: cpus()[0]?.model, node: process.version },
        pages,
        rounds,
        rate,
        ratePages,
        medians: Object.fromEntries(CONFIGS.map((config, i) => [config.name, medians[i]])),
        rateMeasurement: { pagesPerSecond: rateMeasurement.pagesPerSecond, seconds: rateMeasurement.seconds, pages: rateMeasurement.pages },
        verdicts: { unchanged, atRate },
      },
      null,
      2,
    )}\n`,
  );
  process.stdout.write(`\nresults: ${file}\n`);
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`politeness-bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
