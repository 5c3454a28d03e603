import { z } from 'zod';
import { SIGNING_KEY_STATUSES, WEBHOOK_DELIVERY_STATUSES } from '../states';
import { webhookEventType } from '../webhook.messages';
import { nextCursor } from './batch-runs.schemas';

/** Webhook signing keys, the test event and the delivery log (spec-batch-api §4, §5, §6). */

/** Body of `POST /v1/webhook/test`. */
export const webhookTestBody = z
  .strictObject({
    url: z.string().max(2048).meta({ description: 'A public `https` URL.' }),
    /** Default false: an unsigned test. */
    signature: z.boolean().nullish().meta({ description: 'Sign the test like real deliveries (default false).' }),
  })
  .meta({ id: 'WebhookTestRequest' });

/** `POST /v1/webhook/test`'s answer: `200` whatever the receiver answered. */
export const webhookTestResult = z
  .object({
    delivered: z.boolean().meta({ description: 'True only for a 2xx answer.' }),
    event_id: z.uuid(),
    status_code: z.int().nullable().meta({ description: "The receiver's status; `null` when no HTTP answer came." }),
    elapsed_ms: z.int().min(0),
    error: z.string().optional().meta({
      description:
        'Why it failed: `http_3xx:<status>`, `http_4xx:<status>`, `http_5xx:<status>`, `timeout`, `connection_refused`, `connection_failed`, `tls_error`, `dns_failure`, `egress_refused`, `https_required`.',
    }),
  })
  .meta({ id: 'WebhookTestResult' });
export type WebhookTestResultAnswer = z.infer<typeof webhookTestResult>;

/** `POST /v1/hmac/keys/rotate`: the new key, with its secret shown this one time. */
export const issuedSigningKey = z
  .object({
    kid: z.string(),
    secret: z.string().meta({ description: 'Base64; shown this one time.' }),
    created_at: z.iso.datetime(),
    status: z.enum(SIGNING_KEY_STATUSES).meta({ description: '`active` when the account had no key, else `candidate` until finalize.' }),
  })
  .meta({ id: 'IssuedSigningKey' });
export type IssuedSigningKeyAnswer = z.infer<typeof issuedSigningKey>;

/** `POST /v1/hmac/keys/rotate/finalize`: the key now signing. */
export const finalizedSigningKey = z.object({ active_kid: z.string(), created_at: z.iso.datetime() }).meta({ id: 'FinalizedSigningKey' });
export type FinalizedSigningKeyAnswer = z.infer<typeof finalizedSigningKey>;

/** `GET /v1/hmac/keys`: never a secret. */
const signingKeyMeta = z.object({ kid: z.string(), created_at: z.iso.datetime() });

export const signingKeyList = z
  .object({
    active_kid: z.string().nullable(),
    candidate_kid: z.string().nullable(),
    keys: z.array(z.object({ kid: z.string(), status: z.enum(SIGNING_KEY_STATUSES), created_at: z.iso.datetime() })).meta({
      description: 'Newest first.',
    }),
    active: signingKeyMeta.optional().meta({ description: 'The active key, as the public Node SDK reads it.' }),
    candidate: signingKeyMeta.optional().meta({ description: 'The staged key, as the public Node SDK reads it.' }),
  })
  .meta({ id: 'SigningKeyList' });
export type SigningKeyListAnswer = z.infer<typeof signingKeyList>;

/** One event sent to a job's webhook, with every attempt. */
export const webhookDelivery = z
  .object({
    event_id: z.uuid().meta({ description: 'The `X-Service-Event-Id` of every attempt.' }),
    // The log's column is text: typed as a string, documented as the event types it holds.
    event_type: z.string().meta({ enum: [...webhookEventType.options] }),
    run_id: z.string(),
    url: z.string(),
    signed: z.boolean(),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES),
    created_at: z.iso.datetime(),
    next_attempt_at: z.iso.datetime().nullable(),
    finished_at: z.iso.datetime().nullable(),
    attempts: z.array(
      z.object({
        attempt: z.int().min(1),
        at: z.iso.datetime(),
        status_code: z.int().nullable(),
        error: z.string().nullable(),
        elapsed_ms: z.int().min(0),
      }),
    ),
  })
  .meta({ id: 'WebhookDelivery' });
export type WebhookDeliveryAnswer = z.infer<typeof webhookDelivery>;

/** `GET /v1/jobs/{jobId}/webhook/deliveries`: newest first. */
export const webhookDeliveryList = z
  .object({ deliveries: z.array(webhookDelivery), next_cursor: nextCursor })
  .meta({ id: 'WebhookDeliveryList' });
export type WebhookDeliveryListAnswer = z.infer<typeof webhookDeliveryList>;
