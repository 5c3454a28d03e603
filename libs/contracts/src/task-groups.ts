import { z } from 'zod';

/**
 * Tasks that travel several to a NATS message (crawl pages, batch tasks): JetStream's per-message
 * costs (store, delivery, ack, the publisher's wait for its PubAck) are then paid once for them all.
 * A message of several is `{ v: 1, tasks: [...] }` on the same subject as a single task, with
 * `PAGES_HEADER` saying how many it carries; a task left alone keeps the single form and id, so
 * workers of every version read it (docs/decisions/crawl-api.md, "Page tasks travel together").
 */

/** Most tasks one message carries (`CRAWL_TASK_GROUP_SIZE` and `BATCH_TASK_GROUP_SIZE` are bounded by it). */
export const MAX_PAGES_PER_TASK_MESSAGE = 64;

/**
 * Header of a message of several tasks: how many. A worker counts its slots in tasks, not messages,
 * and reads the count here before it decodes the message. Each task fetches one page, hence the name.
 */
export const PAGES_HEADER = 'Trawl-Pages';

/** The payload of a message of several tasks of `task`'s kind (2 to `MAX_PAGES_PER_TASK_MESSAGE`). */
export function tasksTogether<T extends z.ZodTypeAny>(task: T) {
  return z.object({
    v: z.literal(1),
    tasks: z.array(task).min(2).max(MAX_PAGES_PER_TASK_MESSAGE),
  });
}

/** A message to publish (the shape `@trawl/messaging`'s `PublishItem` takes). */
export interface TaskMessage {
  subject: string;
  payload: unknown;
  msgId: string;
  headers?: Record<string, string>;
}

/** How an entry (a claimed task, with what its claim knows) travels. */
export interface TaskMessageForm<E> {
  /** The task as a worker reads it. */
  task(entry: E): unknown;
  /** `Nats-Msg-Id` of the task sent alone: one claim of it (its lease's end included). */
  msgId(entry: E): string;
}

/**
 * The messages for `entries`' tasks, in order: up to `perMessage` to a message, a task left alone in its
 * single form. A message of several is named by its first task's id and how many it carries
 * (`<first>+<n>`): the same claims give the same messages and ids, so a publish repeated after a
 * NATS outage is deduplicated message by message, and a new claim (a new lease in its first task's
 * id) is never taken for a repeat.
 */
export function taskMessages<E>(entries: readonly E[], subject: string, perMessage: number, form: TaskMessageForm<E>): TaskMessage[] {
  const messages: TaskMessage[] = [];
  const size = Math.max(1, Math.min(MAX_PAGES_PER_TASK_MESSAGE, Math.floor(perMessage)));
  for (let at = 0; at < entries.length; at += size) {
    const group = entries.slice(at, at + size);
    const first = form.msgId(group[0]);
    if (group.length === 1) messages.push({ subject, payload: form.task(group[0]), msgId: first });
    else
      messages.push({
        subject,
        payload: { v: 1, tasks: group.map((entry) => form.task(entry)) },
        msgId: `${first}+${group.length}`,
        headers: { [PAGES_HEADER]: String(group.length) },
      });
  }
  return messages;
}
