import { z } from 'zod';
import { baseConfigSchema, envBool, envInt } from '@trawl/config';
import { parseHostMap } from '@trawl/egress';
import { proxyConfigShape } from './proxies/proxies.config';

/**
 * The fetch worker's environment, parsed once in main.ts. Workers hold no database connection, so
 * `DATABASE_URL` is not part of it.
 */
export const fetchWorkerConfigSchema = baseConfigSchema.omit({ DATABASE_URL: true }).extend({
  /** Port of /healthz, /readyz and /metrics. */
  PORT: envInt(8082, 0, 65535),
  /** Pages fetched at once by one worker process (default 64). */
  WORKER_CONCURRENCY: envInt(64, 1, 4096),
  /** Batch tasks run at once by one worker process (default 16); 0: this worker takes no batch tasks. */
  BATCH_CONCURRENCY: envInt(16, 0, 4096),
  /** Whole page load, redirects and body included, in ms (default 30 s). */
  PAGE_TIMEOUT_MS: envInt(30_000, 1_000, 180_000),
  /**
   * Largest page body read, in bytes, as received and decompressed (default 10 MiB): the one limit
   * of Fetch, Batch and crawl pages alike (a gateway's or scheduler's own limit can only lower it).
   */
  MAX_BODY_BYTES: envInt(10 * 1024 * 1024, 1024, 100 * 1024 * 1024),
  /**
   * Bytes of page bodies this worker spills to JetStream at once (batch bodies, crawl HTML too large
   * for a result message), in bytes (default 32 MiB); more wait for room. A body larger than it is
   * spilled alone. See docs/operating.md, "Sizing".
   */
  SPILL_BUDGET_BYTES: envInt(32 * 1024 * 1024, 1024 * 1024, 4 * 1024 * 1024 * 1024),
  /**
   * How long a crawl page's result waits for others to travel in one message with, in ms (default
   * 5). Each waits at most this long; 0 sends what one event-loop turn finished.
   */
  RESULT_LINGER_MS: envInt(5, 0, 1_000),
  /**
   * The same for a batch task's result, in ms (default 2): shorter, because a task's slot of its
   * tenant's concurrency stays taken until its result is applied, so the wait is part of every
   * task's cycle (a crawl keeps a whole window of pages out, and a page's wait holds none).
   */
  BATCH_RESULT_LINGER_MS: envInt(2, 0, 1_000),
  /** Fetch API requests served at once by one worker process (default 32); more are answered busy. */
  FETCH_CONCURRENCY: envInt(32, 1, 4096),
  /**
   * Map API requests served at once by one worker process (default 8); more are answered busy and
   * the gateway asks another worker. A map reads a few documents at a time, sitemaps as they stream.
   */
  MAP_CONCURRENCY: envInt(8, 1, 1024),
  /**
   * Chromium browsers kept running for the rendering tiers (default 2). 0: no browser, and
   * `js_render` requests answer `ERR0001` (a worker for crawls and basic fetches only).
   */
  BROWSERS: envInt(2, 0, 64),
  /** Pages rendering at once in one browser (default 4). */
  PAGES_PER_BROWSER: envInt(4, 1, 64),
  /**
   * A browser is replaced after opening this many pages (default 100): Chromium leaks with every
   * context. A reused page counts once; it is closed itself after BROWSER_PAGE_MAX_USES requests.
   */
  BROWSER_RETIRE_AFTER_PAGES: envInt(100, 1, 100_000),
  /**
   * Reuse a rendered page, frozen and wiped, for the next rendering request of the same tenant and
   * route (default true): a fresh page costs a renderer process start. Never across tenants.
   */
  BROWSER_PAGE_REUSE: envBool(true),
  /**
   * Most bytes one rendered page (its document and every sub-resource) may download (default
   * 64 MiB); past it its connections are cut and the request answers RESP005.
   */
  BROWSER_MAX_PAGE_BYTES: envInt(64 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024),
  /** A parked page nobody asked for is closed after this long, in ms (default 30 s). */
  BROWSER_PAGE_IDLE_MS: envInt(30_000, 100, 600_000),
  /** A page is closed after serving this many requests (default 200; see docs/decisions/browser.md, "Browser page reuse"). */
  BROWSER_PAGE_MAX_USES: envInt(200, 1, 10_000),
  /** Chromium to run: Debian's wrapper script by default. */
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /**
   * The Chrome version (`156.0.8078.108`) every request's browser identity claims. Default: the
   * version of CHROMIUM_PATH, asked at start, so that what a page is told and what renders it agree.
   * Set it only for a worker without Chromium (BROWSERS=0), to the version the others run.
   */
  CHROME_VERSION: z
    .string()
    .regex(/^\d+\.\d+\.\d+\.\d+$/, 'a full Chrome version such as 156.0.8078.108')
    .optional(),
  /**
   * A PEM file of certificate authorities targets may be signed by besides the public ones (a
   * private CA; the tests' own). The HTTP engine's TLS client trusts them with the public roots, and
   * Chromium accepts a chain that holds one of their keys. Default: the public roots only.
   */
  TLS_EXTRA_CA_FILE: z.string().min(1).optional(),
  /**
   * Most page loads in flight to one target host, across every worker replica and tenant (default
   * 0: no limit). Loads wait for a slot; see docs/decisions/politeness.md.
   */
  HOST_CONCURRENCY_LIMIT: envInt(0, 0, 100_000),
  /** Most page loads started per second on one target host, cluster-wide (default 0: no limit; 0.5 is one every 2 s). */
  HOST_RATE_LIMIT: z.coerce.number().min(0).max(100_000).default(0),
  /**
   * A host that answers 429 (or 503 with Retry-After) is paused for every worker for its
   * Retry-After, and the load is sent once more after the pause (default true).
   */
  HOST_BACKOFF: envBool(true),
  /** Pause after a 429 without Retry-After, in ms, doubling with each one in a row (default 1 s). */
  HOST_BACKOFF_BASE_MS: envInt(1_000, 10, 600_000),
  /** Longest pause of a host, whatever its Retry-After asks, in ms (default 2 min). */
  HOST_BACKOFF_MAX_MS: envInt(120_000, 100, 3_600_000),
  /**
   * Bytes of kept page copies (`max_age` requests) the installation stores, all tenants together
   * (default 1 GiB); past it the oldest copies go first. Applied by the worker that creates the stream.
   */
  PAGE_COPY_MAX_BYTES: envInt(1024 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024 * 1024),
  /** A kept copy expires this long after it was fetched, in ms (default 1 day); a longer max_age finds nothing older. */
  PAGE_COPY_TTL_MS: envInt(24 * 3600_000, 60_000, 30 * 24 * 3600_000),
  /**
   * Largest page kept as a copy, in bytes, as stored (default 900 KiB, under NATS's 1 MiB
   * max_payload); larger pages are fetched every time.
   */
  PAGE_COPY_MAX_ENTRY_BYTES: envInt(900 * 1024, 1024, 64 * 1024 * 1024),
  /**
   * Bytes of `change_tracking`'s last page versions kept, all tenants together (default 1 GiB); past
   * it the oldest go first (their next fetch is then `new`).
   */
  PAGE_VERSION_MAX_BYTES: envInt(1024 * 1024 * 1024, 1024 * 1024, 1024 * 1024 * 1024 * 1024),
  /** A page version is forgotten this long after it was fetched, in ms (default 30 days). */
  PAGE_VERSION_TTL_MS: envInt(30 * 24 * 3600_000, 60_000, 365 * 24 * 3600_000),
  /** Wait between two polls of a CAPTCHA solver task, in ms (default 5 s, as 2captcha asks). */
  CAPTCHA_POLL_INTERVAL_MS: envInt(5_000, 10, 60_000),
  /** Checked here so that a bad entry fails the boot with the variable's name. */
  EGRESS_HOST_MAP: baseConfigSchema.shape.EGRESS_HOST_MAP.superRefine((spec, issues) => {
    try {
      parseHostMap(spec);
    } catch (error) {
      issues.addIssue({ code: 'custom', message: (error as Error).message });
    }
  }),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  // Upstream proxy pools and adaptive stealth's memory (PROXY_POOLS, STEALTH_TIER_TTL_MS).
  ...proxyConfigShape,
});
export type FetchWorkerConfig = z.infer<typeof fetchWorkerConfigSchema>;
