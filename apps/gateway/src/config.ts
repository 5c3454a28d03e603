import { z } from 'zod';
import { baseConfigSchema, envInt, loadConfig } from '@trawl/config';
import { Secret } from './secret';

/** The gateway's environment: the base variables every service reads, plus the public API's own. */
export const gatewayConfigSchema = baseConfigSchema.extend({
  /** Port of the public API (and /healthz, /readyz, /metrics). Default 8080. */
  PORT: envInt(8080, 0, 65_535),
  /** Bearer token of the admin API (at least 16 characters). Held as a {@link Secret}: never logged. */
  ADMIN_TOKEN: z
    .string({ error: 'is required (the bearer token of the admin API)' })
    .min(16, { error: 'must be at least 16 characters' })
    .transform((value) => new Secret(value)),
  /** Postgres connections in this replica's pool. Default 10. */
  DATABASE_POOL_SIZE: envInt(10, 1, 500),
  /** Largest request body accepted, in bytes. Default 1 MiB. */
  HTTP_BODY_LIMIT_BYTES: envInt(1024 * 1024, 1024),
  /** How long a verified API key is trusted without asking Postgres again, in ms. Default 5,000. */
  API_KEY_CACHE_TTL_MS: envInt(5_000, 0, 300_000),
  /** Most API keys held in the in-process cache (least recently used go first). Default 10,000. */
  API_KEY_CACHE_MAX_ENTRIES: envInt(10_000, 1),
  /**
   * Longest wait for the DNS answer that checks a start URL, in ms. Default 3,000. A start URL whose
   * name does not resolve in time is accepted: the worker's egress policy checks it again at connect.
   */
  START_URL_RESOLVE_TIMEOUT_MS: envInt(3_000, 1, 60_000),
  /** OTLP/HTTP traces endpoint; spans are made but not exported when unset. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Parses the gateway's config once at boot; throws a `ConfigError` naming every bad variable. */
export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, env);
}
