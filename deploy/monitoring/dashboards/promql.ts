import { NS } from './builder';

/** `histogram_quantile(q, sum by (le, …) (rate(<metric>_bucket{<filter>}[$__rate_interval])))`. */
export function quantile(q: number, metric: string, filter = NS, by: string[] = []): string {
  return `histogram_quantile(${q}, sum by (${['le', ...by].join(', ')}) (rate(${metric}_bucket{${filter}}[$__rate_interval])))`;
}

/** `sum by (…) (rate(<metric>{<filter>}[$__rate_interval]))`. */
export function rate(metric: string, by: string[] = [], filter = NS): string {
  const sum = by.length > 0 ? `sum by (${by.join(', ')})` : 'sum';
  return `${sum} (rate(${metric}{${filter}}[$__rate_interval]))`;
}

/** The gateway's HTTP histogram, which other applications may export too: always with its job. */
export const GATEWAY = `job="trawl-gateway", ${NS}`;
/** The Fetch endpoint's routes (`/v1`, `/v1/`), which have their own panels. */
export const API = `${GATEWAY}, route!~"/v1/?"`;
