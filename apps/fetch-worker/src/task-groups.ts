import type { JsMsg } from '@nats-io/jetstream';
import { PAGES_HEADER } from '@trawl/contracts';
import { Disposition, InboundMessage, MessagingConnection, publishManyJson } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import type { Counter } from 'prom-client';

/** How often a task at work tells JetStream so; well inside the work consumers' 30 s ack wait. */
export const WORKING_INTERVAL_MS = 10_000;
/** Delay before a task handed back after a failure (a publish failed, an unexpected error) is offered again, in ms. */
export const RETRY_DELAY_MS = 5_000;

/** What a work message takes of a worker's slots: the tasks it carries (`taskMessages` of @trawl/contracts). */
export function tasksIn(msg: JsMsg): number {
  return Number(msg.headers?.get(PAGES_HEADER) || 1);
}

/** Where the tasks of a message of several go when they cannot be done now. */
export interface HandBackAlone<T> {
  messaging: MessagingConnection;
  /** The work subject: a task handed back is published there alone, in its single form. */
  subject: string;
  /** Names a task within its message: handed back alone, its msg id is `<message's id>/<key>`. */
  keyOf(task: T): string | number;
  /** Counts the tasks handed back alone. */
  handedBackAlone: Counter;
  logger: Logger;
  /** What the log line of a failed hand-back names (the crawl, the run). */
  fieldsOf(tasks: T[]): Record<string, unknown>;
}

/**
 * Runs a message's tasks side by side, each through `handle` as if it had come alone (taking a
 * slot each: the consumer weighs the message with `tasksIn`). A task `handle` does not ack (a busy
 * host or browser, a shutdown, a failure) is published again alone before the message is acked,
 * so it waits with its own `nak` delay, as a task sent alone does, without holding the others'
 * message. Should that publish fail, the message comes back whole after `RETRY_DELAY_MS`; tasks
 * already answered are then answered twice, and their consumers apply one answer, as for any redelivery.
 */
export async function handleTogether<T>(
  message: InboundMessage<{ tasks: T[] }>,
  handle: (one: InboundMessage<T>) => Promise<Disposition>,
  handBack: HandBackAlone<T>,
): Promise<Disposition> {
  const { tasks } = message.data;
  // Each task beats while it fetches; this covers the rest (results waiting for their store).
  const heartbeat = setInterval(() => keepWorking(message), WORKING_INTERVAL_MS);
  let outcomes: Disposition[];
  try {
    outcomes = await Promise.all(tasks.map((task) => handle(taskOf(message, task))));
  } finally {
    clearInterval(heartbeat);
  }
  const handedBack = tasks.filter((_, i) => outcomes[i].kind !== 'ack');
  if (handedBack.length === 0) return { kind: 'ack' };
  const messageId = message.headers['nats-msg-id'];
  try {
    await publishManyJson(
      handBack.messaging.js,
      handedBack.map((task) => ({
        subject: handBack.subject,
        payload: task,
        // The same task of the same message handed back twice (the message came back) is stored once.
        msgId: messageId === undefined ? undefined : `${messageId}/${handBack.keyOf(task)}`,
      })),
    );
  } catch (error) {
    handBack.logger.warn(
      { err: error, ...handBack.fieldsOf(tasks), tasks: handedBack.length },
      'could not hand tasks back alone; message handed back',
    );
    return { kind: 'nak', delayMs: RETRY_DELAY_MS };
  }
  handBack.handedBackAlone.inc(handedBack.length);
  return { kind: 'ack' };
}

/** One task of a message of several, as if it had come alone (its beats and trace are the message's). */
function taskOf<T>(message: InboundMessage<unknown>, task: T): InboundMessage<T> {
  return {
    data: task,
    subject: message.subject,
    headers: message.headers,
    deliveryCount: message.deliveryCount,
    redelivered: message.redelivered,
    working: () => message.working(),
    traceContext: () => message.traceContext(),
  };
}

/** Restarts `message`'s ack wait; a failure is only logged. */
export function keepWorking(message: InboundMessage<unknown>, log?: { debug(obj: object, msg: string): void }): void {
  try {
    message.working();
  } catch (error) {
    // The connection is down; redelivery after the ack wait is the fallback, nothing to do here.
    log?.debug({ err: error }, 'working() failed');
  }
}

/** A message of several tasks, told from one of a single task. */
export function isSeveral<T>(message: InboundMessage<T | { v: 1; tasks: T[] }>): message is InboundMessage<{ v: 1; tasks: T[] }> {
  return 'tasks' in (message.data as object);
}
