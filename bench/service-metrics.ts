/**
 * Prometheus counters and histogram totals of a service, summed over label sets, so two scrapes can
 * be subtracted to see what one crawl cost (e.g. `trawl_crawl_intake_batch_seconds_sum`).
 */
export type MetricTotals = Record<string, number>;

/** Scrapes a service's `/metrics` (`Platform.metricsUrl`); keeps `*_total`, `*_sum` and `*_count` series. */
export async function scrapeTotals(metricsUrl: string): Promise<MetricTotals> {
  const res = await fetch(metricsUrl);
  if (!res.ok) throw new Error(`${metricsUrl} answered ${res.status}`);
  const totals: MetricTotals = {};
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*_(?:total|sum|count))(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match) totals[match[1]] = (totals[match[1]] ?? 0) + Number(match[2]);
  }
  return totals;
}

/**
 * The series of the metrics named `names` (full series names, e.g. `x_seconds_sum`), one per label
 * set, where {@link scrapeTotals} would add them up. Keyed `name{a="1",b="2"}` with the labels
 * sorted and without `service` (every Trawl series carries it).
 */
export async function scrapeLabelled(metricsUrl: string, names: readonly string[]): Promise<MetricTotals> {
  const res = await fetch(metricsUrl);
  if (!res.ok) throw new Error(`${metricsUrl} answered ${res.status}`);
  const series: MetricTotals = {};
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)\{([^}]*)\}\s+(\S+)/.exec(line);
    if (!match || !names.includes(match[1])) continue;
    const labels = [...match[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)]
      .filter(([, name]) => name !== 'service')
      .map(([, name, value]) => `${name}="${value}"`)
      .sort();
    series[`${match[1]}{${labels.join(',')}}`] = Number(match[3]);
  }
  return series;
}

/** `after - before` for every series of `after` that moved. */
export function totalsDelta(before: MetricTotals, after: MetricTotals): MetricTotals {
  const delta: MetricTotals = {};
  for (const [name, value] of Object.entries(after)) {
    const moved = value - (before[name] ?? 0);
    if (moved !== 0) delta[name] = moved;
  }
  return delta;
}

/** Current value of a gauge, summed over label sets; undefined when the service does not export it. */
export async function scrapeGauge(metricsUrl: string, name: string): Promise<number | undefined> {
  const res = await fetch(metricsUrl);
  if (!res.ok) return undefined;
  let total: number | undefined;
  for (const line of (await res.text()).split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{[^}]*\})?\s+(\S+)/.exec(line);
    if (match?.[1] === name) total = (total ?? 0) + Number(match[2]);
  }
  return total;
}

/**
 * Samples gauges of services every `intervalMs` (default 500 ms) until stopped; a scrape that fails
 * is skipped. Returns the samples by the caller's names.
 */
export function sampleGauges<K extends string>(
  gauges: Record<K, { metricsUrl: string; gauge: string }>,
  intervalMs = 500,
): { stop(): Promise<Record<K, number[]>> } {
  const names = Object.keys(gauges) as K[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  let running = true;
  const loop = (async () => {
    while (running) {
      await Promise.all(
        names.map(async (name) => {
          const value = await scrapeGauge(gauges[name].metricsUrl, gauges[name].gauge).catch(() => undefined);
          if (value !== undefined) samples[name].push(value);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

/** Arithmetic mean, or undefined without values. */
export function meanOf(values: readonly number[]): number | undefined {
  return values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Trawl's own `*_seconds` histograms among `totals` (e.g. a {@link totalsDelta}): count and sum of each. */
export function trawlHistograms(totals: MetricTotals): Array<{ name: string; count: number; sumSeconds: number }> {
  return Object.keys(totals)
    .filter((name) => name.startsWith('trawl_') && name.endsWith('_seconds_sum'))
    .map((sumName) => {
      const name = sumName.slice(0, -'_sum'.length);
      return { name, count: totals[`${name}_count`] ?? 0, sumSeconds: totals[sumName] };
    });
}
