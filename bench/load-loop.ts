import { Pool } from 'undici';
import { MeasuredWindow } from './measured-window';

/** Latencies and throughput of a closed-loop load (each client sends its next request when the last answered). */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Status codes seen, with counts (non-2xx answers count as errors). */
  statuses: Record<number, number>;
  /** Problem codes of the error answers (`code` of a problem+json body), with counts. */
  errorCodes: Record<string, number>;
}

export interface LoadOptions {
  /** Base URL of the server, e.g. `http://127.0.0.1:8080`. */
  origin: string;
  /** Path and query of every request. */
  path: string;
  headers?: Record<string, string>;
  clients: number;
  /** Called once, when the warm-up ends and measuring starts (to start CPU meters). */
  onMeasuring?: () => void;
  /** Measured duration, after `warmupSeconds`. */
  seconds: number;
  warmupSeconds: number;
  /** Answers (of every client together) the warm-up waits for besides its seconds; default 0. */
  warmupAnswers?: number;
}

/** Runs `clients` loops against one origin over a pool of as many keep-alive connections. */
export async function closedLoopLoad(options: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(options.origin, { connections: options.clients, pipelining: 1 });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const errorCodes: Record<string, number> = {};
  let errors = 0;
  const window = new MeasuredWindow(options);
  const loop = async (): Promise<void> => {
    while (window.open) {
      const started = process.hrtime.bigint();
      let status = 0;
      let code = 'no answer';
      try {
        const res = await pool.request({ method: 'GET', path: options.path, headers: options.headers });
        status = res.statusCode;
        const body = await res.body.arrayBuffer();
        if (status >= 300) code = problemCode(Buffer.from(body)) ?? String(status);
      } catch {
        status = 0;
      }
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      if (!window.counts()) continue;
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status < 200 || status >= 300) {
        errors += 1;
        errorCodes[code] = (errorCodes[code] ?? 0) + 1;
      } else latencies.push(ms);
    }
  };
  try {
    await Promise.all(Array.from({ length: options.clients }, loop));
  } finally {
    await pool.close();
  }
  const seconds = window.seconds;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    seconds,
    perSecond: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    statuses,
    errorCodes,
  };
}

/** The `code` of a problem+json body, when the body is one. */
function problemCode(body: Buffer): string | undefined {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { code?: unknown };
    return typeof parsed.code === 'string' ? parsed.code : undefined;
  } catch {
    return undefined;
  }
}

export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
