import { z } from 'zod';

const intFromEnv = (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max).default(def);

/** Integer environment variable with a default and bounds. */
export const envInt = intFromEnv;

/** Boolean environment variable: `true`/`1`/`yes` are true. */
export const envBool = (def: boolean) =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? def : ['true', '1', 'yes'].includes(v.toLowerCase())));

/** Variables every service reads. */
export const baseConfigSchema = z.object({
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/trawl'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Prefix of every JetStream stream, consumer and subject, so tests can run beside `make run`. */
  NATS_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9_]*$/, 'lowercase letters, digits and underscores')
    .default('trawl'),
  /**
   * Copies JetStream keeps of every stream, KV bucket and consumer a service provisions, 1–5
   * (default 1). R1 on a single NATS server (development); R3 on a NATS cluster, so a node's
   * restart loses nothing. Set it the same on every service: each provisions what it uses.
   */
  NATS_STREAM_REPLICAS: intFromEnv(1, 1, 5),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** `shop.test=127.0.0.1,hooks.test=127.0.0.1`: named hosts mapped to loopback for development. */
  EGRESS_HOST_MAP: z.string().default(''),
  /** Port of the service's HTTP listener (/healthz, /readyz, /metrics; the API for the gateway). */
  HTTP_HOST: z.string().default('127.0.0.1'),
  SHUTDOWN_TIMEOUT_MS: intFromEnv(20_000, 0),
  /**
   * How far the JavaScript heap may grow past what the last full collection kept before the next
   * one, in percent (V8's `--heap-growing-percent`); 0 leaves it to V8. V8 picks up to 300 % from
   * how fast its first collections ran, so the same service peaked anywhere from +3 % to +50 % of
   * its steady memory from run to run; at 50 % it stays within a few percent, for ~3 % more CPU
   * (docs/operating.md, "Memory").
   */
  HEAP_GROWTH_PERCENT: intFromEnv(50, 0, 400),
  /**
   * Whether V8 may allocate objects straight into the old generation where most objects of the
   * same allocation site outlived a young collection (V8's `--allocation-site-pretenuring`, on by
   * default in V8). Off by default: after a service parsed large pages, V8 pretenured the sites that
   * build parse trees, so every later tree was half old and half young, and the dead old halves kept
   * the young halves alive; young collections then copied ~10 MB instead of ~1 MB and took 8–14 ms
   * instead of ~1 (docs/operating.md, "Memory").
   */
  ALLOCATION_SITE_PRETENURING: envBool(false),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/**
 * Settings of the Fetch API's rules that every service applying them reads (the gateway for Fetch
 * requests, the scheduler for batch tasks): set them the same on both.
 */
export const fetchPolicyConfigShape = {
  /**
   * Domains nobody may fetch (`REQS001`), comma-separated; each forbids its subdomains too
   * (`example.com` forbids `www.example.com`). Default none.
   */
  FETCH_FORBIDDEN_DOMAINS: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((domain) =>
          domain
            .trim()
            .toLowerCase()
            .replace(/^\.+|\.+$/g, ''),
        )
        .filter((domain) => domain.length > 0),
    ),
  /** Price of one credit in US dollars: `X-Request-Cost`, a run's `spend.cost` (credits × price). Default 0.0001. */
  FETCH_CREDIT_PRICE_USD: z.coerce.number().min(0).max(1_000).default(0.0001),
};
