import { z } from 'zod';
import { baseConfigSchema, envInt } from '@trawl/config';
import { secretsKeyEnv } from '@trawl/webhooks';

export const webhookDispatcherConfigSchema = baseConfigSchema.extend({
  PORT: envInt(8084, 0, 65535),
  DB_POOL_SIZE: envInt(5, 1, 200),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().url().optional(),
  /**
   * Base64 of 32 bytes, the same as the gateway's: opens signing secrets. Optional so the service
   * boots without it; signed deliveries then fail with `signing_key_unavailable` and are retried.
   * Held by a SecretBox: never logged.
   */
  SECRETS_KEY: secretsKeyEnv,
  /** Deadline of one delivery attempt, in ms. Default 10,000. */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: envInt(10_000, 100, 120_000),
  /** Ceiling of the first retry delay, in ms (doubles per attempt, full jitter). Default 30,000. */
  WEBHOOK_RETRY_BASE_MS: envInt(30_000, 1),
  /** Largest ceiling of one retry delay, in ms. Default 14,400,000 (4 h). */
  WEBHOOK_RETRY_MAX_DELAY_MS: envInt(4 * 3600_000, 1),
  /** How long after intake deliveries are retried, in ms. Default 86,400,000 (24 h). */
  WEBHOOK_RETRY_WINDOW_MS: envInt(24 * 3600_000, 1),
  /** Attempts this replica runs at once. Default 32. */
  WEBHOOK_CONCURRENCY: envInt(32, 1, 1_000),
  /** How often an idle replica looks for due deliveries, in ms. Default 500. */
  WEBHOOK_POLL_INTERVAL_MS: envInt(500, 10, 60_000),
});
export type WebhookDispatcherConfig = z.infer<typeof webhookDispatcherConfigSchema>;
