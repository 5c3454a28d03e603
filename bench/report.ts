import type { CrawlerMeasurement } from './measurement';
import { trawlHistograms } from './service-metrics';

/** Trawl's pages/s must be at least this multiple of Crawlee's on the same machine and site. */
export const TARGET_RATIO = 3;

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

/** Pages/s of every round, and Trawl/Crawlee of the rounds run side by side. */
export function formatRounds(crawlee: readonly CrawlerMeasurement[], trawl: readonly CrawlerMeasurement[]): string {
  const lines = [`Rounds (pages/s; the tables above show each crawler's median round, with the peak RSS of all rounds):`];
  if (crawlee.length > 0) lines.push(`  Crawlee: ${crawlee.map((m) => m.pagesPerSecond.toFixed(1)).join(', ')}`);
  if (trawl.length > 0) {
    lines.push(`  Trawl:   ${trawl.map((m) => m.pagesPerSecond.toFixed(1)).join(', ')}`);
    lines.push(`  Trawl coordinator peak RSS after each round (MiB): ${trawl.map((m) => mib(m.peakRssBytes.coordinator)).join(', ')}`);
  }
  const paired = Math.min(crawlee.length, trawl.length);
  if (paired > 0) {
    const ratios = Array.from({ length: paired }, (_, i) => throughputRatio(trawl[i], crawlee[i]).toFixed(2));
    lines.push(`  Trawl / Crawlee by round: ${ratios.join(', ')}`);
  }
  return lines.join('\n');
}

/** Trawl's pages/s over Crawlee's. */
export function throughputRatio(trawl: CrawlerMeasurement, crawlee: CrawlerMeasurement): number {
  return trawl.pagesPerSecond / crawlee.pagesPerSecond;
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
        m.crawler === 'Crawlee' ? '(one process)' : mib(m.peakRssBytes.coordinator),
        mib(m.peakRssBytes.worker),
      ]),
    ),
  );
  const trawl = measurements.find((m) => m.crawler === 'Trawl');
  const crawlee = measurements.find((m) => m.crawler === 'Crawlee');
  if (trawl && crawlee) {
    const ratio = throughputRatio(trawl, crawlee);
    out.push(
      '',
      `Trawl / Crawlee pages/s: ${ratio.toFixed(2)}× at concurrency ${concurrency} on ${cores} cores — ` +
        `target ≥ ${TARGET_RATIO}×: ${ratio >= TARGET_RATIO ? 'MET' : 'NOT MET'}`,
    );
  }
  out.push(
    '',
    'Mean pages loading at once (of configured): ' +
      measurements
        .map((m) => `${m.crawler} ${Number(m.details.meanConcurrency ?? 0).toFixed(1)} of ${String(m.details.concurrency ?? concurrency)}`)
        .join(', '),
  );
  out.push('', 'Resident memory as the crawl progresses (flat = the frontier lives in Postgres, not in memory):');
  const memoryRows: string[][] = [];
  for (const m of measurements) {
    const roles = [...new Set(m.progressMemory.flatMap((p) => Object.keys(p.rssBytes)))].filter((r) => r !== 'fixtureWeb');
    for (const role of roles) {
      memoryRows.push([
        m.crawler,
        role,
        ...[25, 50, 75, 100].map((percent) => mib(m.progressMemory.find((p) => p.percent === percent)?.rssBytes[role])),
      ]);
    }
  }
  out.push(table(['crawler', 'process', '25 %', '50 %', '75 %', '100 %'], memoryRows));
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
    ? `\nMean pages in flight (sampled every 500 ms): coordinator ${inFlight.coordinator?.toFixed(1) ?? '—'} dispatched and unanswered, ` +
      `worker ${inFlight.worker?.toFixed(1) ?? '—'} being loaded or published`
    : '';
  const depth = trawl.details.meanQueueDepth as Record<string, number> | undefined;
  const depthLine = depth
    ? `\nMean JetStream depth: ${depth.tasksWaiting.toFixed(1)} tasks waiting for a worker, ${depth.tasksAtWorkers.toFixed(1)} at the worker, ` +
      `${depth.resultsWaiting.toFixed(1)} results waiting for the coordinator, ${depth.resultsAtCoordinator.toFixed(1)} in an intake batch`
    : '';
  return `Trawl metrics over the measured crawl (${trawl.seconds.toFixed(2)} s):\n${table(['service', 'metric', 'count', 'seconds', 'mean'], rows)}${inFlightLine}${depthLine}`;
}
