import { envInt } from '@trawl/config';
import { secretsKeyEnv } from '@trawl/webhooks';

/**
 * The gateway's webhook variables, spread into its config schema. `SECRETS_KEY` is optional so
 * that an installation without webhooks boots; signing-key endpoints then answer 503.
 */
export const webhooksConfigShape = {
  /** Base64 of 32 random bytes: seals signing secrets (AES-256-GCM). Never logged (held by a SecretBox). */
  SECRETS_KEY: secretsKeyEnv,
  /** Deadline of the one attempt `POST /v1/webhook/test` makes, in ms. Default 10,000. */
  WEBHOOK_ATTEMPT_TIMEOUT_MS: envInt(10_000, 100, 120_000),
};
