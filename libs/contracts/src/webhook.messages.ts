import { z } from 'zod';
import type { ChangeStatus } from './fetch.messages';
import type { MessagingTopology } from './messaging-topology';
import type { ConsumerDefinition } from './provisioning';

/** Event types a webhook receives (spec-batch-api §6). */
export const webhookEventType = z.enum(['run.completed', 'run.failed', 'webhook.test']);
export type WebhookEventType = z.infer<typeof webhookEventType>;

/** Event types that run ends write to the outbox (`webhook.test` is sent by the gateway directly). */
export const RUN_WEBHOOK_EVENT_TYPES = ['run.completed', 'run.failed'] as const;

/** Run stats as the webhook body carries them (spec-batch-api §2 Run, §6). */
export const webhookRunStatsV1 = z.object({
  total: z.number().int().min(0),
  completed: z.number().int().min(0),
  successful: z.number().int().min(0),
  failed: z.number().int().min(0),
  spend: z.object({ credits: z.number().min(0), cost: z.number().min(0) }),
});
export type WebhookRunStatsV1 = z.infer<typeof webhookRunStatsV1>;

/** The verdicts whose pages a run event names: the new and the same are only counted. */
export const LISTED_CHANGE_STATUSES = ['changed', 'removed'] as const satisfies readonly ChangeStatus[];

/** Most pages a run event names as changed or removed; the results endpoint lists them all (`change_status=changed,removed`). */
export const WEBHOOK_CHANGED_PAGES_LIMIT = 100;

/**
 * What a run's tasks with `change_tracking` found, for a monitor's receiver: how many pages had
 * each verdict, and the pages that changed or went (task order, at most
 * `WEBHOOK_CHANGED_PAGES_LIMIT`; `pages_truncated` when there were more). Results carried over by
 * retry-failed are not counted: they were compared in the run they came from.
 */
export const webhookRunChangesV1 = z.object({
  new: z.number().int().min(0),
  same: z.number().int().min(0),
  changed: z.number().int().min(0),
  removed: z.number().int().min(0),
  pages: z
    .array(
      z.object({
        task_id: z.string(),
        url: z.string(),
        external_id: z.string().nullable(),
        change_status: z.enum(LISTED_CHANGE_STATUSES),
      }),
    )
    .max(WEBHOOK_CHANGED_PAGES_LIMIT),
  pages_truncated: z.boolean(),
});
export type WebhookRunChangesV1 = z.infer<typeof webhookRunChangesV1>;

/** The job's webhook as it was when the run ended. */
export const webhookTargetV1 = z.object({
  url: z.string().url(),
  signature: z.boolean(),
});
export type WebhookTargetV1 = z.infer<typeof webhookTargetV1>;

/**
 * A run end announced to the webhook dispatcher: written to the outbox (with `enqueueWebhookEvent`
 * of `@trawl/webhooks`) in the transaction that ends the run, relayed to
 * `<prefix>.events.<event_type>`. `event_id` is the `X-Service-Event-Id` of every delivery attempt,
 * so it must be chosen once, when the run ends. `webhook: null` (no webhook set) is accepted and
 * delivers nothing, so writers need not branch.
 */
export const runWebhookEventV1 = z
  .object({
    v: z.literal(1),
    event_id: z.string().uuid(),
    event_type: z.enum(RUN_WEBHOOK_EVENT_TYPES),
    /** ISO 8601 UTC with milliseconds: when the run ended. */
    occurred_at: z.string().datetime({ offset: true }),
    tenant_id: z.string().uuid(),
    job_id: z.string().min(1),
    run_id: z.string().min(1),
    run_sequence: z.number().int().min(1),
    stats: webhookRunStatsV1,
    /** Only when tasks of the run asked for `change_tracking`. */
    changes: webhookRunChangesV1.optional(),
    /** `run.failed` only. */
    failure_reason: z.string().nullish(),
    /** `run.failed` only. */
    failure_detail: z.string().nullish(),
    webhook: webhookTargetV1.nullable(),
  })
  .refine((event) => event.event_type !== 'run.failed' || typeof event.failure_reason === 'string', {
    message: 'run.failed carries failure_reason',
    path: ['failure_reason'],
  });
export type RunWebhookEventV1 = z.infer<typeof runWebhookEventV1>;

/** Outbox subject of a run event: `<prefix>.events.run.completed` or `.run.failed`. */
export function runWebhookEventSubject(topology: MessagingTopology, eventType: RunWebhookEventV1['event_type']): string {
  return topology.subjects.event(eventType);
}

/**
 * The dispatchers' durable consumer on the events stream: only run events (a domain event added
 * later would share the stream). Intake is one insert, so a short ack wait is enough; the
 * delivery itself is scheduled in Postgres, not by redelivery.
 */
export function webhookConsumerDefinition(topology: MessagingTopology): ConsumerDefinition {
  return {
    stream: topology.streams.events,
    durable: 'webhook-dispatchers',
    filterSubject: topology.subjects.event('run.>'),
    ackWaitMs: 30_000,
    // Intake is idempotent and only fails while Postgres does: never drop a run event.
    maxDeliver: -1,
    maxAckPending: 1024,
  };
}
