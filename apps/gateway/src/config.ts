import { z } from 'zod';
import { baseConfigSchema, envBool, envInt, fetchPolicyConfigShape, loadConfig } from '@trawl/config';
import { batchFilesConfigShape } from './job-inputs/batch-files.config';
import { Secret } from './secret';
import { batchConfigShape } from './batch/batch.config';
import { webhooksConfigShape } from './webhooks/webhooks.config';
import { planDefaultsConfigShape } from './tenants/plan-defaults.config';

/** The gateway's environment: the base variables every service reads, plus the public API's own. */
export const gatewayConfigSchema = baseConfigSchema
  .extend({
    /** Port of the public API (and /healthz, /readyz). Default 8080. */
    PORT: envInt(8080, 0, 65_535),
    /**
     * Port of the operator surface: the admin API and `/metrics` (which names tenants), with /healthz
     * and /readyz. Never served on `PORT`, so an Ingress for the API cannot expose them. Default 8085.
     */
    ADMIN_PORT: envInt(8085, 0, 65_535),
    /** Address the operator surface listens on. Default: `HTTP_HOST`. */
    ADMIN_HOST: z.string().min(1).optional(),
    /**
     * Failed admin authentications one client address may make in a minute; past it, every admin
     * request from that address is refused (429) until the minute has passed. Default 10.
     */
    ADMIN_AUTH_FAILURES_PER_MINUTE: envInt(10, 1, 10_000),
    /** Bearer token of the admin API (at least 16 characters). Held as a {@link Secret}: never logged. */
    ADMIN_TOKEN: z
      .string({ error: 'is required (the bearer token of the admin API)' })
      .min(16, { error: 'must be at least 16 characters' })
      .transform((value) => new Secret(value)),
    /** Postgres connections in this replica's pool. Default 10. */
    DATABASE_POOL_SIZE: envInt(10, 1, 500),
    /** Largest request body accepted, in bytes. Default 1 MiB. */
    HTTP_BODY_LIMIT_BYTES: envInt(1024 * 1024, 1024),
    /**
     * Proxies (load balancers, ingress) whose `X-Forwarded-For` is believed, as comma-separated
     * addresses or CIDRs, e.g. `10.0.0.0/8`. Default: none, so the client address (rate limits,
     * `BLK0001`) is the connection's own and a client cannot pick another by sending the header.
     */
    TRUSTED_PROXIES: z
      .string()
      .default('')
      .refine((value) => value.split(',').every((entry) => entry.trim() === '' || /^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(entry.trim())), {
        message: 'must be comma-separated IP addresses or CIDRs',
      }),
    /** How long a verified API key is trusted without asking Postgres again, in ms. Default 5,000. */
    API_KEY_CACHE_TTL_MS: envInt(5_000, 0, 300_000),
    /** Most API keys held in the in-process cache (least recently used go first). Default 10,000. */
    API_KEY_CACHE_MAX_ENTRIES: envInt(10_000, 1),
    /**
     * Longest wait for the DNS answer that checks a start URL, in ms. Default 3,000. A start URL whose
     * name does not resolve in time is accepted: the worker's egress policy checks it again at connect.
     */
    START_URL_RESOLVE_TIMEOUT_MS: envInt(3_000, 1, 60_000),
    /**
     * How long a Fetch request may take, from its arrival to the worker's answer, in ms. Default
     * 170,000: under the 3 minutes clients wait (fetch-details "Time"), with room to send the answer.
     */
    FETCH_DEADLINE_MS: envInt(170_000, 1_000, 600_000),
    /**
     * How long past the deadline the gateway still waits for the worker's own `CTX0002` before it
     * answers `CTX0002` itself, in ms. Default 5,000.
     */
    FETCH_DEADLINE_MARGIN_MS: envInt(5_000, 0, 60_000),
    /** Largest answer body a Fetch request may get, in bytes (`RESP005` beyond it). Default 10 MiB. */
    FETCH_MAX_BODY_BYTES: envInt(10 * 1024 * 1024, 1024, 1024 * 1024 * 1024),
    ...fetchPolicyConfigShape,
    /** Time a worker has to accept a Fetch request before another is asked, in ms. Default 2,000. */
    FETCH_RPC_ACCEPT_TIMEOUT_MS: envInt(2_000, 50, 60_000),
    /** Silence after which a worker that accepted a Fetch request counts as lost, in ms. Default 10,000. */
    FETCH_RPC_SILENCE_TIMEOUT_MS: envInt(10_000, 100, 120_000),
    /** Workers that may answer busy before the request fails with `RESP009`. Default 3. */
    FETCH_RPC_BUSY_RETRIES: envInt(3, 0, 20),
    /**
     * Longest time a Fetch request's ledger row waits to be written with others, in ms. Default 25.
     * A gateway killed without a clean shutdown loses the charges of its last this-many ms (answered,
     * not billed); 0 commits each row before its request is answered, at one WAL flush per request.
     */
    FETCH_LEDGER_FLUSH_MS: envInt(25, 0, 5_000),
    /**
     * How recent this replica's last admission of a tenant must be for the tenant's next plain GET to
     * go to a worker while its own admission is still under way, in ms (see HeadStarts: only for a
     * tenant far from its limits). Default 2,000; 0 makes every request wait for its admission.
     */
    FETCH_HEAD_START_MS: envInt(2_000, 0, 60_000),
    /**
     * Longest wait of a slot release that no answer waits for (a roomy tenant's) for an admission
     * statement of this replica to ride on, in ms; after it, one statement writes all that wait.
     * Default 5. 0 writes each release alone at once.
     */
    FETCH_RELEASE_LINGER_MS: envInt(5, 0, 1_000),
    /**
     * Longest wait of a request that went to a worker before its admission (a head start) for other
     * requests of its tenant to share its admission statement, in ms; it goes sooner when its
     * worker answers. Default 2. 0 sends each alone. Requests that wait for their admission are
     * never held back.
     */
    FETCH_ADMISSION_LINGER_MS: envInt(2, 0, 1_000),
    /**
     * How long what an admission statement read of a tenant (account, rate window, slots) may admit
     * the tenant's requests on this replica without another statement, in ms (see Allotments: only a
     * tenant far from its limits, from requests the statement set aside and slots kept here). A plan,
     * suspension or credit change takes effect on a busy tenant within this time. Default 1,000;
     * 0 sends every request's admission to Postgres and keeps no slot.
     */
    FETCH_ALLOTMENT_MS: envInt(1_000, 0, 10_000),
    /** How long a concurrency slot kept on this replica for a tenant's next request may sit unused before it goes back, in ms. Default 1,000. */
    FETCH_ALLOTMENT_IDLE_MS: envInt(1_000, 50, 60_000),
    /** Most requests of a tenant's rate window one admission statement sets aside for this replica. Default 32. */
    FETCH_ALLOTMENT_MAX_REQUESTS: envInt(32, 1, 1_000),
    /** Window over which a client address's error rate is measured, in seconds. Default 60. */
    CLIENT_ERROR_WINDOW_SECONDS: envInt(60, 1, 86_400),
    /** Fewest requests in a window before the error rate can block an address. Default 50. */
    CLIENT_ERROR_MIN_REQUESTS: envInt(50, 1, 1_000_000),
    /** Error rate, in percent of a window's requests, from which an address is blocked. Default 80. */
    CLIENT_ERROR_RATE_PERCENT: envInt(80, 1, 100),
    /** How long a blocked address stays blocked (`BLK0001`), in seconds. Default 600. */
    CLIENT_BLOCK_SECONDS: envInt(600, 1, 86_400 * 30),
    /**
     * How long a replica trusts what it last read of an address's block, in ms. Default 1,000: a block
     * decided on another replica takes effect here within this time.
     */
    CLIENT_BLOCK_CACHE_MS: envInt(1_000, 0, 60_000),
    /** Longest time answers to client addresses are counted in memory before they are written together, in ms. Default 100. */
    CLIENT_HEALTH_FLUSH_MS: envInt(100, 0, 10_000),
    /** Proxy mode (spec-extract-fetch §5.3): the Fetch API as an HTTP forward proxy. Default true. */
    PROXY_MODE_ENABLED: envBool(true),
    /** Port of proxy mode, on `HTTP_HOST`. Default 8001 (the port clients are told); 0 = ephemeral. */
    PROXY_MODE_PORT: envInt(8001, 0, 65_535),
    /**
     * CA certificate that signs proxy mode's per-host certificates for HTTPS through CONNECT: PEM text
     * or the path of a PEM file. With `PROXY_MODE_CA_KEY`; when both are unset, a CA made at boot
     * (only clients that skip certificate checks accept it).
     */
    PROXY_MODE_CA_CERT: z.string().min(1).optional(),
    /** Private key (RSA, unencrypted PEM, text or file path) of `PROXY_MODE_CA_CERT`. A {@link Secret}. */
    PROXY_MODE_CA_KEY: z
      .string()
      .min(1)
      .optional()
      .transform((value) => (value === undefined ? undefined : new Secret(value))),
    /** Hosts whose proxy mode certificate is kept ready in memory. Default 1,000. */
    PROXY_MODE_CERT_CACHE_SIZE: envInt(1_000, 1, 1_000_000),
    /** OTLP/HTTP traces endpoint; spans are made but not exported when unset. */
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
    /** `SECRETS_KEY` (seals webhook signing secrets) and `WEBHOOK_ATTEMPT_TIMEOUT_MS`: see webhooks.config.ts. */
    ...webhooksConfigShape,
    /** `PUBLIC_BASE_URL`, `URL_SIGNING_SECRET`, CSV upload and export limits: see batch-files.config.ts. */
    ...batchFilesConfigShape,
    /** `BATCH_BODY_LIMIT_BYTES`, `BATCH_RESULTS_PAGE_BYTES`, `BATCH_INGEST_RECOVERY_INTERVAL_MS`: see batch/batch.config.ts. */
    ...batchConfigShape,
    /** `PLAN_DEFAULT_*`: the plan of a tenant created without those fields; see tenants/plan-defaults.config.ts. */
    ...planDefaultsConfigShape,
  })
  .superRefine((config, context) => {
    if (config.ADMIN_PORT !== 0 && config.ADMIN_PORT === config.PORT) {
      context.addIssue({
        code: 'custom',
        path: ['ADMIN_PORT'],
        message: 'must differ from PORT: the admin API and /metrics never share the public port',
      });
    }
    if (config.FILE_TRANSFERS_MAX !== undefined && config.FILE_TRANSFERS_MAX >= config.DATABASE_POOL_SIZE) {
      context.addIssue({
        code: 'custom',
        path: ['FILE_TRANSFERS_MAX'],
        message: `must be below DATABASE_POOL_SIZE (${config.DATABASE_POOL_SIZE}): uploads and downloads would take every connection`,
      });
    }
  })
  .transform((config) => ({ ...config, FILE_TRANSFERS_MAX: config.FILE_TRANSFERS_MAX ?? fileTransfersMax(config.DATABASE_POOL_SIZE) }));

/** FILE_TRANSFERS_MAX when unset: half the pool, at most 4, at least 1. */
function fileTransfersMax(poolSize: number): number {
  return Math.max(1, Math.min(4, Math.floor(poolSize / 2)));
}

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Parses the gateway's config once at boot; throws a `ConfigError` naming every bad variable. */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, env);
}
