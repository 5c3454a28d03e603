import { randomUUID } from 'node:crypto';
import { MessagingTopology, runWebhookEventSubject, runWebhookEventV1, RunWebhookEventV1 } from '@trawl/contracts';
import { writeToOutbox } from '@trawl/messaging';
import type { Sql } from '@trawl/persistence';

/** A run event as its writer knows it; `v` is added and `event_id` chosen here when left out. */
export type RunWebhookEventInput = Omit<RunWebhookEventV1, 'v' | 'event_id'> & { event_id?: string };

/**
 * Writes a run's webhook event to the outbox, in the caller's transaction (the one that ends the
 * run), so the event exists exactly when the run end does. The outbox relay publishes it to the
 * events stream and the webhook dispatcher delivers it. Returns the event id (the
 * `X-Service-Event-Id` of every attempt).
 *
 * @throws ZodError when the event does not match `runWebhookEventV1` (a programming error).
 */
export async function enqueueWebhookEvent(sql: Sql, topology: MessagingTopology, event: RunWebhookEventInput): Promise<string> {
  const message = await writeToOutbox(sql, runWebhookEventSubject(topology, event.event_type), runWebhookEventV1, {
    ...event,
    event_id: event.event_id ?? randomUUID(),
  });
  return message.event_id;
}
