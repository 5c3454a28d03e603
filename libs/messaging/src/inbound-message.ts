import type { Context } from '@opentelemetry/api';
import type { JetStreamClient, JsMsg } from '@nats-io/jetstream';
import type { ZodType } from 'zod';
import { traceContextFrom } from './trace-context';

/** What a handler decides for a message. */
export type Disposition =
  /** Done: the message is removed (work queue) or never redelivered. */
  | { kind: 'ack' }
  /** Not now: redeliver after `delayMs` (default: at once). */
  | { kind: 'nak'; delayMs?: number }
  /** Never: the message is not delivered again (poison, or the work no longer exists). */
  | { kind: 'term'; reason: string };

export interface InboundMessage<T> {
  /** The validated payload. */
  data: T;
  subject: string;
  /** Message headers, keys lower-cased (`traceparent`, `nats-msg-id`, …). */
  headers: Record<string, string>;
  /** 1 on the first delivery. */
  deliveryCount: number;
  redelivered: boolean;
  /** Tells JetStream the message is still being worked on: restarts its ack wait. No-op once settled. */
  working(): void;
  /** The publisher's trace context (W3C headers), to parent this message's spans. */
  traceContext(): Context;
}

/** What the runners log through; a pino logger fits. */
export interface MessagingLogger {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface ConsumerRunnerOptions<T> {
  js: JetStreamClient;
  stream: string;
  /** The durable consumer (see `ensureConsumer`); it must exist when `start()` is called. */
  durable: string;
  /** Payload validation: an invalid payload is logged and `term`ed, never retried. */
  schema: ZodType<T>;
  /** Default: console. */
  logger?: MessagingLogger;
  /**
   * Lifetime of one pull request, in ms (default 10 000, at least 1 000). Only idle consumers
   * notice it: they re-ask the server this often.
   */
  pullExpiresMs?: number;
}

/** Fallback when a service passes no logger: a library must not stay silent about dropped messages. */
export const consoleLogger: MessagingLogger = {
  // eslint-disable-next-line no-console
  warn: (obj, msg) => console.warn(msg, obj),
  // eslint-disable-next-line no-console
  error: (obj, msg) => console.error(msg, obj),
};

/**
 * One delivered message as a handler sees it, plus the bookkeeping of whether it was settled
 * (acked, nak'ed or termed): a message is settled once, by its handler or by `stop()`.
 */
export class Delivery<T> implements InboundMessage<T> {
  readonly subject: string;
  readonly deliveryCount: number;
  readonly redelivered: boolean;
  private settled = false;
  private headerRecord?: Record<string, string>;

  constructor(
    private readonly msg: JsMsg,
    readonly data: T,
  ) {
    this.subject = msg.subject;
    this.deliveryCount = msg.info.deliveryCount;
    this.redelivered = msg.info.redelivered;
  }

  get headers(): Record<string, string> {
    this.headerRecord ??= headerRecord(this.msg);
    return this.headerRecord;
  }

  /** Stream sequence, for logs. */
  get seq(): number {
    return this.msg.seq;
  }

  get isSettled(): boolean {
    return this.settled;
  }

  working(): void {
    if (!this.settled) this.msg.working();
  }

  traceContext(): Context {
    return traceContextFrom(this.headers);
  }

  /** Applies `disposition` unless already settled; false when it came too late. */
  settle(disposition: Disposition): boolean {
    if (this.settled) return false;
    this.settled = true;
    applyDisposition(this.msg, disposition);
    return true;
  }
}

function applyDisposition(msg: JsMsg, disposition: Disposition): void {
  switch (disposition.kind) {
    case 'ack':
      msg.ack();
      return;
    case 'nak':
      msg.nak(disposition.delayMs && disposition.delayMs > 0 ? disposition.delayMs : undefined);
      return;
    case 'term':
      // nats-server < 2.11 does not understand `+TERM <reason>` and treats it as no ack at all
      // (the message comes back after ack wait), so the reason goes to the logs only.
      msg.term();
      return;
  }
}

/** True for a value a handler may return; anything else is treated as a handler failure. */
export function isDisposition(value: unknown): value is Disposition {
  const kind = (value as { kind?: unknown } | null | undefined)?.kind;
  return kind === 'ack' || kind === 'nak' || kind === 'term';
}

export type Decoded<T> = { ok: true; data: T } | { ok: false; problem: string; issues?: unknown[] };

/** Parses the JSON body and validates it against `schema`. */
export function decode<T>(msg: JsMsg, schema: ZodType<T>): Decoded<T> {
  let raw: unknown;
  try {
    raw = msg.json();
  } catch {
    return { ok: false, problem: 'body is not JSON' };
  }
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, data: result.data };
  // A few issues are enough to find the publisher's bug; the payload itself may be large.
  const issues = result.error.issues.slice(0, 5).map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
  return { ok: false, problem: 'payload does not match the schema', issues };
}

function headerRecord(msg: JsMsg): Record<string, string> {
  const record: Record<string, string> = {};
  if (!msg.headers) return record;
  for (const [key, values] of msg.headers) {
    if (values.length > 0) record[key.toLowerCase()] = values[0];
  }
  return record;
}
