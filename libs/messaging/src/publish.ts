import type { JetStreamClient, PubAck } from '@nats-io/jetstream';
import { headers as natsHeaders, MsgHdrs } from '@nats-io/nats-core';
import type { MessagingConnection } from './connection';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { activeTraceHeaders } from './trace-context';

export interface PublishOptions {
  /** Sets `Nats-Msg-Id`: JetStream drops a repeat within the stream's duplicate window. */
  msgId?: string;
  /** Extra headers; they win over the injected trace context. */
  headers?: Record<string, string>;
  /** Time to wait for the stream's ack, in ms (default: the connection's `requestTimeoutMs`, 5 000). */
  timeoutMs?: number;
}

export interface PublishItem {
  subject: string;
  payload: unknown;
  /** Sets `Nats-Msg-Id` (see `PublishOptions.msgId`). */
  msgId?: string;
  headers?: Record<string, string>;
}

export interface PublishManyOptions {
  /** Publishes awaiting their ack at once (default 256). */
  maxOutstanding?: number;
  /** Time to wait for each ack, in ms (default: the connection's `requestTimeoutMs`). */
  timeoutMs?: number;
}

/**
 * Publishes `payload` as JSON to a JetStream subject and waits for the stream's ack. The active
 * OpenTelemetry context travels as W3C `traceparent`/`tracestate` headers. Rejects with
 * `MessagingError` `publish_failed` when no stream stores the subject or the ack does not come in
 * time; `duplicate` is true when the stream dropped the message as a repeat of `msgId`.
 */
export async function publishJson(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  options: PublishOptions = {},
): Promise<{ seq: number; duplicate: boolean }> {
  const item = { subject, payload, msgId: options.msgId, headers: options.headers };
  const ack = await publishOne(js, item, activeTraceHeaders(), options.timeoutMs);
  return { seq: ack.seq, duplicate: ack.duplicate === true };
}

/**
 * Publishes many messages with up to `maxOutstanding` acks awaited at once: one round trip for
 * the lot instead of one per message. Every item is attempted; then rejects with `MessagingError`
 * `publish_failed` (first failure in `cause`) if any was not stored.
 */
export async function publishManyJson(js: JetStreamClient, items: PublishItem[], options: PublishManyOptions = {}): Promise<void> {
  const results = await publishEach(js, items, options);
  const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failures.length > 0) {
    throw new MessagingError(
      MessagingErrorCode.PublishFailed,
      `${failures.length} of ${items.length} messages were not published: ${(failures[0].reason as Error)?.message}`,
      { cause: failures[0].reason },
    );
  }
}

/** Publishes every item (pipelined, like `publishManyJson`) and reports each outcome in order. */
export async function publishEach(
  js: JetStreamClient,
  items: PublishItem[],
  options: PublishManyOptions = {},
): Promise<PromiseSettledResult<PubAck>[]> {
  const trace = activeTraceHeaders();
  const results: PromiseSettledResult<PubAck>[] = new Array(items.length);
  let next = 0;
  // Each lane keeps one publish in flight; the publishes of all lanes share the connection, so
  // the server still receives them in item order.
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        results[index] = { status: 'fulfilled', value: await publishOne(js, items[index], trace, options.timeoutMs) };
      } catch (reason) {
        results[index] = { status: 'rejected', reason };
      }
    }
  };
  const lanes = Math.max(1, Math.min(options.maxOutstanding ?? 256, items.length));
  await Promise.all(Array.from({ length: lanes }, lane));
  return results;
}

function publishOne(js: JetStreamClient, item: PublishItem, trace: Record<string, string>, timeoutMs?: number): Promise<PubAck> {
  const body = JSON.stringify(item.payload);
  if (body === undefined) {
    return Promise.reject(new MessagingError(MessagingErrorCode.InvalidOption, `Payload for ${item.subject} is not JSON`));
  }
  return js
    .publish(item.subject, body, {
      msgID: item.msgId,
      headers: toMsgHdrs(trace, item.headers),
      ...(timeoutMs !== undefined ? { timeout: timeoutMs } : {}),
    })
    .catch((error: unknown) => {
      // The client reports "no responders" as "jetstream is not enabled"; the usual cause is a
      // subject no stream stores (stream not provisioned, wrong prefix).
      const why =
        (error as Error)?.name === 'JetStreamNotEnabled' ? 'no stream stores the subject, or JetStream is down' : (error as Error)?.message;
      throw new MessagingError(MessagingErrorCode.PublishFailed, `Publishing to ${item.subject} failed: ${why}`, { cause: error });
    });
}

function toMsgHdrs(trace: Record<string, string>, extra: Record<string, string> | undefined): MsgHdrs | undefined {
  const entries = Object.entries({ ...trace, ...extra });
  if (entries.length === 0) return undefined;
  const h = natsHeaders();
  for (const [key, value] of entries) h.set(key, String(value));
  return h;
}

export interface HeldPublishOptions extends PublishManyOptions {
  /**
   * How long messages that were not stored (NATS restarting, JetStream still recovering its streams)
   * are held and published again, in ms (default 30 000). Past it, rejects as `publishManyJson` does.
   */
  holdMs?: number;
  /** Ends the holding early (shutdown): rejects with what is still unpublished. */
  signal?: AbortSignal;
  /** Called once, when messages start being held (for a log line): the first failure and how many. */
  onHold?: (error: unknown, held: number) => void;
}

/** First pause between rounds while connected but refused (streams not recovered yet); doubles to 2 s. */
const HELD_RETRY_MS = 250;
const HELD_RETRY_MAX_MS = 2_000;

/**
 * `publishManyJson` that rides out a NATS outage: the items that were not stored are held and
 * published again once the connection is back, with their own `Nats-Msg-Id` (so a publish whose
 * ack alone was lost is dropped as a repeat within the stream's duplicate window), until `holdMs`
 * has passed. Callers keep their work instead of leaving it to a lease measured in minutes.
 */
export async function publishManyHeld(
  connection: MessagingConnection,
  items: PublishItem[],
  options: HeldPublishOptions = {},
): Promise<void> {
  const deadline = Date.now() + (options.holdMs ?? 30_000);
  let pending = items;
  let pauseMs = HELD_RETRY_MS;
  for (;;) {
    const results = await publishEach(connection.js, pending, options);
    const failed = pending.filter((_, i) => results[i].status === 'rejected');
    if (failed.length === 0) return;
    const firstFailure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason as Error;
    const left = deadline - Date.now();
    if (left <= 0 || options.signal?.aborted) {
      throw new MessagingError(
        MessagingErrorCode.PublishFailed,
        `${failed.length} of ${items.length} messages were not published: ${firstFailure?.message}`,
        { cause: firstFailure },
      );
    }
    if (pending === items) options.onHold?.(firstFailure, failed.length);
    pending = failed;
    if (!connection.isConnected()) {
      await Promise.race([connection.whenConnected(left), abortableSleep(left, options.signal)]);
      pauseMs = HELD_RETRY_MS;
    } else {
      await abortableSleep(Math.min(pauseMs, left), options.signal);
      pauseMs = Math.min(HELD_RETRY_MAX_MS, pauseMs * 2);
    }
  }
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    // Unref'd: a sleep raced with the reconnect must not keep a process alive once that won.
    const timer = setTimeout(done, ms).unref();
    signal?.addEventListener('abort', done, { once: true });
  });
}
