import { context, propagation } from '@opentelemetry/api';
import { headers as natsHeaders } from '@nats-io/nats-core';
import type { JetStreamClient } from '@nats-io/jetstream';

export interface PublishOptions {
  /** Sets `Nats-Msg-Id`: JetStream drops a repeat within the stream's duplicate window. */
  msgId?: string;
  headers?: Record<string, string>;
  /** Time to wait for the stream's ack, ms (default 5,000). */
  timeoutMs?: number;
}

const encoder = new TextEncoder();

/** Headers for a message: the caller's, plus W3C trace context of the active span. */
function buildHeaders(extra: Record<string, string> = {}) {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const h = natsHeaders();
  for (const [key, value] of Object.entries({ ...carrier, ...extra })) h.set(key, value);
  return h;
}

/** Publishes a JSON payload to JetStream and waits for the stream's ack. */
export async function publishJson(
  js: JetStreamClient,
  subject: string,
  payload: unknown,
  options: PublishOptions = {},
): Promise<{ seq: number; duplicate: boolean }> {
  const ack = await js.publish(subject, encoder.encode(JSON.stringify(payload)), {
    msgID: options.msgId,
    headers: buildHeaders(options.headers),
    timeout: options.timeoutMs ?? 5_000,
  });
  return { seq: ack.seq, duplicate: ack.duplicate };
}

export interface PublishItem {
  subject: string;
  payload: unknown;
  msgId?: string;
}

/**
 * Publishes many messages with up to `window` acks outstanding at once (pipelined, not one round
 * trip each); rejects if any publish fails, after all settled.
 */
export async function publishManyJson(js: JetStreamClient, items: PublishItem[], window = 256): Promise<void> {
  let next = 0;
  let failure: unknown;
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++];
      await publishJson(js, item.subject, item.payload, { msgId: item.msgId }).catch((error: unknown) => {
        failure ??= error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(window, items.length) }, lane));
  if (failure) throw failure;
}
