import { randomUUID } from 'node:crypto';
import type { RunWebhookEventV1, WebhookEventType, WebhookRunChangesV1, WebhookRunStatsV1 } from '@trawl/contracts';

/** `schema` of every webhook body (spec-batch-api §9). */
export const WEBHOOK_SCHEMA = 'service.webhook/v1';
/** `User-Agent` of every delivery (spec-batch-api §6, §9). */
export const WEBHOOK_USER_AGENT = 'service-webhook/v1';

/** The JSON body a receiver gets (spec-batch-api §6 "Body fields"). */
export interface WebhookBody {
  schema: typeof WEBHOOK_SCHEMA;
  event_id: string;
  event_type: WebhookEventType;
  /** UTC, with milliseconds. */
  occurred_at: string;
  /** `null` in `webhook.test`, which runs no job. */
  job_id: string | null;
  run_id: string | null;
  run_sequence: number | null;
  stats: WebhookRunStatsV1 | null;
  /** A run whose tasks asked for `change_tracking` (a monitor): what they found. */
  changes?: WebhookRunChangesV1;
  failure_reason?: string;
  failure_detail?: string;
}

/** The body of a run event; `failure_*` only on `run.failed` (an empty detail is sent as ""). */
export function runEventBody(event: RunWebhookEventV1): WebhookBody {
  return {
    schema: WEBHOOK_SCHEMA,
    event_id: event.event_id,
    event_type: event.event_type,
    occurred_at: new Date(event.occurred_at).toISOString(),
    job_id: event.job_id,
    run_id: event.run_id,
    run_sequence: event.run_sequence,
    stats: event.stats,
    ...(event.changes && { changes: event.changes }),
    ...(event.event_type === 'run.failed' && {
      failure_reason: event.failure_reason ?? '',
      failure_detail: event.failure_detail ?? '',
    }),
  };
}

/**
 * The body of `webhook.test`: the same schema, so a receiver's parser is exercised, with the job and
 * run fields `null` because no job runs.
 */
export function testEventBody(now: Date, eventId: string = randomUUID()): WebhookBody {
  return {
    schema: WEBHOOK_SCHEMA,
    event_id: eventId,
    event_type: 'webhook.test',
    occurred_at: now.toISOString(),
    job_id: null,
    run_id: null,
    run_sequence: null,
    stats: null,
  };
}
