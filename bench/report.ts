import type { CrawlerMeasurement } from './measurement';
import { flatMemoryVerdict, formatGrowth, growthAfterQuarter } from './memory-by-progress';
import { trawlHistograms } from './service-metrics';
import { formatStorageCost, type StorageCost } from './storage-cost';

/** Trawl's pages/s must be at least this multiple of Crawlee's on the same machine and site. */
export const TARGET_RATIO = 3;

/** From this many pages on a crawl is judged as the long one (issue 32: 100,000 pages). */
export const LONG_CRAWL_PAGES = 100_000;

/**
 * Trawl's share of the one-process limit's pages/s (issue 32, target 1): 30 % on a crawl of
 * thousands of pages, 25 % on the long one, whose last quarter must also keep 90 % of its first
 * quarter's rate.
 */
export const LIMIT_SHARE = { short: 0.3, long: 0.25 };
export const LAST_QUARTER_SHARE = 0.9;

const MIB = 1024 * 1024;

function mib(bytes: number | undefined): string {
  return bytes === undefined ? '—' : `${(bytes / MIB).toFixed(0)} MiB`;
}

/** A Markdown table, columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]): string => `| ${cells.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

/** The round with the median pages/s (the lower middle one for an even count). */
export function medianRound(rounds: readonly CrawlerMeasurement[]): CrawlerMeasurement {
  const sorted = [...rounds].sort((a, b) => a.pagesPerSecond - b.pagesPerSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

/**
 * The median round by pages/s, with the peak memory of all rounds. Trawl's processes live through
 * every round and VmHWM only grows, so the median round's own figure depended on which round came
 * out median (about 45 MiB apart between rounds 1 and 3 while garbage waits for a full collection):
 * the peak over the whole run is the figure that compares between builds.
 */
export function medianRoundWithPeak(rounds: readonly CrawlerMeasurement[]): CrawlerMeasurement {
  const median = medianRound(rounds);
  const peak = (role: 'coordinator' | 'worker') => Math.max(...rounds.map((r) => r.peakRssBytes[role] ?? 0));
  const coordinator = peak('coordinator');
  return { ...median, peakRssBytes: { worker: peak('worker'), ...(coordinator > 0 && { coordinator }) } };
}

/** Pages/s of every round, and Trawl's ratios to the others in the rounds they ran side by side. */
export function formatRounds(rounds: Record<'crawlee' | 'trawl' | 'limit' | 'variant', readonly CrawlerMeasurement[]>): string {
  const { crawlee, trawl, limit, variant } = rounds;
  const lines = [`Rounds (pages/s; the tables above show each crawler's median round, with the peak RSS of all rounds):`];
  if (crawlee.length > 0) lines.push(`  Crawlee: ${crawlee.map((m) => m.pagesPerSecond.toFixed(1)).join(', ')}`);
  if (limit.length > 0) lines.push(`  one-process limit: ${limit.map((m) => m.pagesPerSecond.toFixed(1)).join(', ')}`);
  if (trawl.length > 0) {
    lines.push(`  Trawl:   ${trawl.map((m) => m.pagesPerSecond.toFixed(1)).join(', ')}`);
    lines.push(`  Trawl coordinator peak RSS after each round (MiB): ${trawl.map((m) => mib(m.peakRssBytes.coordinator)).join(', ')}`);
  }
  const byRound = (others: readonly CrawlerMeasurement[], format: (ratio: number) => string): string[] =>
    Array.from({ length: Math.min(others.length, trawl.length) }, (_, i) => format(throughputRatio(trawl[i], others[i])));
  if (crawlee.length > 0 && trawl.length > 0) lines.push(`  Trawl / Crawlee by round: ${byRound(crawlee, (r) => r.toFixed(2)).join(', ')}`);
  if (variant.length > 0) {
    lines.push(`  Trawl (variant): ${variant.map((m) => m.pagesPerSecond.toFixed(1)).join(', ')}`);
    lines.push(`  variant / Trawl by round: ${byRound(variant, (r) => `${(100 / r).toFixed(1)} %`).join(', ')}`);
  }
  if (limit.length > 0 && trawl.length > 0) {
    lines.push(`  Trawl / one-process limit by round: ${byRound(limit, (r) => `${(100 * r).toFixed(1)} %`).join(', ')}`);
  }
  return lines.join('\n');
}

/** Trawl's pages/s over another crawler's. */
export function throughputRatio(trawl: CrawlerMeasurement, other: CrawlerMeasurement): number {
  return trawl.pagesPerSecond / other.pagesPerSecond;
}

/** The human summary `make bench` prints: throughput, memory, memory over progress, CPU by process. */
export function formatReport(measurements: CrawlerMeasurement[], concurrency: number, cores: number): string {
  const out: string[] = [];
  out.push(
    table(
      ['crawler', 'pages', 'seconds', 'pages/s', 'peak RSS coordinator', 'peak RSS worker'],
      measurements.map((m) => [
        m.crawler,
        String(m.pages),
        m.seconds.toFixed(2),
        m.pagesPerSecond.toFixed(1),
        m.crawler.startsWith('Trawl') ? mib(m.peakRssBytes.coordinator) : '(one process)',
        mib(m.peakRssBytes.worker),
      ]),
    ),
  );
  const trawl = measurements.find((m) => m.crawler === 'Trawl');
  const crawlee = measurements.find((m) => m.crawler === 'Crawlee');
  const limit = measurements.find((m) => m.crawler === 'one-process limit');
  if (trawl && crawlee) {
    const ratio = throughputRatio(trawl, crawlee);
    out.push(
      '',
      `Trawl / Crawlee pages/s: ${ratio.toFixed(2)}× at concurrency ${concurrency} on ${cores} cores — ` +
        `target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}`,
    );
  }
  if (trawl && limit) out.push('', ...limitVerdicts(trawl, limit));
  out.push('', 'Pages/s by quarter of the crawl (each quarter of the expected pages, from its first to its last):');
  out.push(
    table(
      ['crawler', '1st', '2nd', '3rd', '4th', 'last / first'],
      measurements.map((m) => {
        const rates = quarterRates(m);
        const drift = rates[0] && rates[3] ? `${((100 * rates[3]) / rates[0]).toFixed(0)} %` : '—';
        return [m.crawler, ...rates.map((rate) => (rate === undefined ? '—' : rate.toFixed(0))), drift];
      }),
    ),
  );
  out.push(
    '',
    'Mean pages loading at once (of configured): ' +
      measurements
        .map((m) => `${m.crawler} ${Number(m.details.meanConcurrency ?? 0).toFixed(1)} of ${String(m.details.concurrency ?? concurrency)}`)
        .join(', '),
  );
  out.push(
    '',
    'Resident memory as the crawl progresses (flat = the frontier lives in Postgres, not in memory; Postgres: PSS of all its processes):',
  );
  const memoryRows: string[][] = [];
  for (const m of measurements) {
    for (const role of memoryRoles(m)) {
      const growth = memoryGrowth(m, role);
      memoryRows.push([
        m.crawler,
        role,
        ...[25, 50, 75, 100].map((percent) => mib(m.progress.find((p) => p.percent === percent)?.rssBytes[role])),
        formatGrowth(growth),
      ]);
    }
  }
  out.push(table(['crawler', 'process', '25 %', '50 %', '75 %', '100 %', 'peak vs 25 %'], memoryRows));
  if (trawl && trawl.pages >= LONG_CRAWL_PAGES) {
    const growth = Object.fromEntries(memoryRoles(trawl).map((role) => [role, memoryGrowth(trawl, role)]));
    out.push(flatMemoryVerdict(growth, `the ${trawl.pages}-page crawl`));
  }
  if (trawl) out.push('', formatCostPerPage(trawl));
  out.push('', `CPU time during the measured crawl (capacity: ${cores} cores × seconds):`);
  const cpuRows: string[][] = [];
  for (const m of measurements) {
    const share = (seconds: number): string => `${((100 * seconds) / (m.seconds * cores)).toFixed(0)} %`;
    const { wholeMachine, ...processes } = m.cpuSeconds;
    for (const [process, seconds] of Object.entries(processes)) cpuRows.push([m.crawler, process, seconds.toFixed(2), share(seconds)]);
    if (wholeMachine !== undefined) {
      // This machine is shared: CPU that none of the listed processes used went to someone else.
      const others = wholeMachine - Object.values(processes).reduce((a, b) => a + b, 0);
      cpuRows.push([m.crawler, 'everything else', others.toFixed(2), share(others)]);
      cpuRows.push([m.crawler, 'whole machine', wholeMachine.toFixed(2), share(wholeMachine)]);
    }
  }
  out.push(table(['crawler', 'process', 'CPU s', 'share of machine'], cpuRows));
  return out.join('\n');
}

/**
 * What one crawled page cost Trawl: CPU by process, and what it wrote (Postgres WAL, the database's
 * growth, JetStream messages by stream). The figures docs/operating.md's capacity model starts from.
 */
export function formatCostPerPage(trawl: CrawlerMeasurement): string {
  const perPage = (seconds: number) => `${((1000 * seconds) / Math.max(1, trawl.pages)).toFixed(3)} ms`;
  const { wholeMachine, ...processes } = trawl.cpuSeconds;
  const cpu = Object.entries(processes)
    .filter(([process]) => process !== 'fixtureWeb')
    .map(([process, seconds]) => `${process} ${perPage(seconds)}`);
  const lines = [`Cost per crawled page: CPU ${cpu.join(', ')}; whole machine ${perPage(wholeMachine ?? 0)} (the site included)`];
  const storage = trawl.details.storagePerPage as StorageCost | undefined;
  if (storage) lines.push(`  ${formatStorageCost(storage)}`);
  return lines.join('\n');
}

/**
 * Trawl's share of the one-process limit, with the issue's verdicts: the short crawl's share, or
 * for the long one its share and whether its last quarter kept pace with its first.
 */
export function limitVerdicts(trawl: CrawlerMeasurement, limit: CrawlerMeasurement): string[] {
  const share = throughputRatio(trawl, limit);
  const long = trawl.pages >= LONG_CRAWL_PAGES;
  const target = long ? LIMIT_SHARE.long : LIMIT_SHARE.short;
  const lines = [
    `Trawl / one-process limit pages/s: ${(100 * share).toFixed(1)} % at ${trawl.pages} pages — ` +
      `target ≥ ${100 * target} %: ${share >= target ? 'MET' : 'NOT MET'}`,
  ];
  if (long) {
    const [first, , , last] = quarterRates(trawl);
    const kept = first && last ? last / first : undefined;
    lines.push(
      `Trawl's last quarter / first quarter pages/s: ${kept === undefined ? '—' : `${(100 * kept).toFixed(0)} %`} — ` +
        `target ≥ ${100 * LAST_QUARTER_SHARE} %: ${kept !== undefined && kept >= LAST_QUARTER_SHARE ? 'MET' : 'NOT MET'}`,
    );
  }
  return lines;
}

/** Pages/s in each quarter of the expected pages (undefined where a mark is missing). */
export function quarterRates(m: CrawlerMeasurement): (number | undefined)[] {
  const at = (percent: number) => (percent === 0 ? 0 : m.progress.find((p) => p.percent === percent)?.atSeconds);
  return [25, 50, 75, 100].map((percent) => {
    const from = at(percent - 25);
    const to = at(percent);
    return from === undefined || to === undefined || to <= from ? undefined : m.pages / 4 / (to - from);
  });
}

function memoryRoles(m: CrawlerMeasurement): string[] {
  return [...new Set(m.progress.flatMap((p) => Object.keys(p.rssBytes)))].filter((r) => r !== 'fixtureWeb');
}

/**
 * A process's peak memory after a quarter of the crawl against its memory then: the peak of its
 * samples (every 250 ms) where the bench sampled it, else of the later marks.
 */
function memoryGrowth(m: CrawlerMeasurement, role: string): number | undefined {
  const sampled = (m.details.peakRssAfterQuarterBytes as Record<string, number> | undefined)?.[role];
  const later = [...m.progress.filter((p) => p.percent > 25).map((p) => p.rssBytes[role] ?? 0), sampled ?? 0];
  return growthAfterQuarter(m.progress.find((p) => p.percent === 25)?.rssBytes[role], later);
}

/** Where the Trawl crawl's time went, from the coordinator's and worker's histograms (delta over the crawl). */
export function formatTrawlTimings(trawl: CrawlerMeasurement): string {
  const metrics = (trawl.details.metrics ?? {}) as Record<string, Record<string, number>>;
  const rows: string[][] = [];
  for (const [service, allTotals] of Object.entries(metrics)) {
    // Trawl's own series only: process CPU is in the CPU table, and Node's gauges do not subtract.
    const totals = Object.fromEntries(Object.entries(allTotals).filter(([name]) => name.startsWith('trawl_')));
    for (const { name, count, sumSeconds } of trawlHistograms(totals)) {
      rows.push([service, name, String(count), sumSeconds.toFixed(2), count > 0 ? `${((1000 * sumSeconds) / count).toFixed(1)} ms` : '—']);
    }
    for (const name of Object.keys(totals).filter((n) => n.endsWith('_total'))) rows.push([service, name, String(totals[name]), '', '']);
  }
  if (rows.length === 0) return 'Trawl metrics: none moved (is /metrics served?)';
  const inFlight = trawl.details.meanInFlight as { coordinator?: number; worker?: number } | undefined;
  const inFlightLine = inFlight
    ? `\nMean pages in flight (sampled every ${String(trawl.details.sampleMs ?? 500)} ms): coordinator ${inFlight.coordinator?.toFixed(1) ?? '—'} dispatched and unanswered, ` +
      `worker ${inFlight.worker?.toFixed(1) ?? '—'} being loaded or published`
    : '';
  const depth = trawl.details.meanQueueDepth as Record<string, number> | undefined;
  const depthLine = depth
    ? `\nMean JetStream depth: ${depth.tasksWaiting.toFixed(1)} tasks waiting for a worker, ${depth.tasksAtWorkers.toFixed(1)} at the worker, ` +
      `${depth.resultsWaiting.toFixed(1)} results waiting for the coordinator, ${depth.resultsAtCoordinator.toFixed(1)} in an intake batch`
    : '';
  return `Trawl metrics over the measured crawl (${trawl.seconds.toFixed(2)} s):\n${table(['service', 'metric', 'count', 'seconds', 'mean'], rows)}${inFlightLine}${depthLine}`;
}
