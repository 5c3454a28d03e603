import { Context, propagation, ROOT_CONTEXT } from '@opentelemetry/api';
import type { JsMsg } from '@nats-io/jetstream';
import type { ZodType } from 'zod';

/** What a handler decides for a message. */
export type Disposition = { kind: 'ack' } | { kind: 'nak'; delayMs?: number } | { kind: 'term'; reason: string };

export interface InboundMessage<T> {
  data: T;
  subject: string;
  headers: Record<string, string>;
  /** 1 on first delivery. */
  deliveryCount: number;
  redelivered: boolean;
  /** Tells JetStream the message is still being worked on: resets its ack deadline. */
  working(): void;
  /** The sender's trace context (W3C headers), to parent this message's spans. */
  traceContext(): Context;
}

export interface ConsumerLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ConsumerRunnerOptions<T> {
  js: import('@nats-io/jetstream').JetStreamClient;
  stream: string;
  durable: string;
  /** Payload validation: an invalid payload is logged and termed, never retried. */
  schema: ZodType<T>;
  logger?: ConsumerLogger;
}

const decoder = new TextDecoder();

/** Decodes and validates a message; undefined (after `term`) when the payload is not valid. */
export function toInbound<T>(msg: JsMsg, schema: ZodType<T>, logger?: ConsumerLogger): InboundMessage<T> | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(decoder.decode(msg.data));
  } catch {
    parsed = undefined;
  }
  const result = schema.safeParse(parsed);
  if (!result.success) {
    logger?.error({ subject: msg.subject, seq: msg.seq, issues: result.error?.issues?.slice(0, 5) }, 'invalid message payload: terminated');
    msg.term();
    return undefined;
  }
  const headers: Record<string, string> = {};
  if (msg.headers) for (const [key, values] of msg.headers) headers[key.toLowerCase()] = values[0];
  return {
    data: result.data,
    subject: msg.subject,
    headers,
    deliveryCount: msg.info.deliveryCount,
    redelivered: msg.info.redelivered,
    working: () => msg.working(),
    traceContext: () => propagation.extract(ROOT_CONTEXT, headers),
  };
}

/** Default back-off for a handler that threw: 1 s growing with deliveries, at most 30 s. */
export function retryDelayMs(deliveryCount: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, deliveryCount - 1));
}

export function settle(msg: JsMsg, disposition: Disposition): void {
  switch (disposition.kind) {
    case 'ack':
      msg.ack();
      return;
    case 'nak':
      msg.nak(disposition.delayMs);
      return;
    case 'term':
      // nats-server 2.9 does not understand `+TERM <reason>` and treats it as no ack at all (the
      // message comes back after ack wait), so the reason goes to the logs, not the server.
      msg.term();
      return;
  }
}
