import type { JsMsg } from '@nats-io/jetstream';
import {
  consoleLogger,
  ConsumerRunnerOptions,
  decode,
  Delivery,
  Disposition,
  InboundMessage,
  isDisposition,
  MessagingLogger,
} from './inbound-message';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { PullPump } from './pull-pump';
import { retryDelayMs } from './redelivery';
import { logInvalid, openConsumer, pullExpiresMs, requirePositiveInteger, sleep } from './runner-support';

export interface MessageConsumerOptions<T> extends ConsumerRunnerOptions<T> {
  /**
   * Handlers running at once; also the most messages this process holds un-acked. With `weigh`,
   * counted in its units instead (e.g. pages, for messages that carry several).
   */
  concurrency: number;
  /** How much of `concurrency` a message takes, read before it is decoded (e.g. from a header); default 1. */
  weigh?: (msg: JsMsg) => number;
  /**
   * Decides one message. A handler that throws (or returns something that is not a disposition)
   * is logged and its message nak'ed after `retryDelayMs(deliveryCount)` (1 s doubling, ≤ 30 s).
   */
  handler: (msg: InboundMessage<T>) => Promise<Disposition>;
}

/** Default time `stop()` gives handlers in flight, in ms. */
export const DEFAULT_STOP_DEADLINE_MS = 10_000;

/**
 * Runs `handler` on messages of a durable pull consumer, up to `concurrency` at a time. It pulls
 * only as many messages as it has free handlers, so messages wait in JetStream (where another
 * replica can take them), not in this process.
 */
export class MessageConsumer<T> {
  private readonly logger: MessagingLogger;
  /** Messages in flight, with what each takes of `concurrency` (1 without `weigh`). */
  private readonly inFlight = new Map<Delivery<T>, number>();
  private pump?: PullPump;
  private starting?: Promise<void>;
  private stopping?: Promise<void>;
  private stopped = false;
  private drained?: () => void;

  constructor(private readonly options: MessageConsumerOptions<T>) {
    requirePositiveInteger('concurrency', options.concurrency);
    this.logger = options.logger ?? consoleLogger;
  }

  /**
   * Starts pulling. Rejects with `MessagingError` `consumer_not_found` when the durable does not
   * exist, and `consumer_stopped` after `stop()`. Safe to call twice.
   */
  start(): Promise<void> {
    if (this.stopping) {
      return Promise.reject(new MessagingError(MessagingErrorCode.ConsumerStopped, `Consumer ${this.options.durable} was stopped`));
    }
    this.starting ??= this.open();
    return this.starting;
  }

  /**
   * Stops pulling, lets handlers in flight finish until `deadlineMs` (default 10 000 ms) has
   * passed, then naks what is left (without delay, so another replica takes it at once). A handler
   * that finishes later has no effect. Safe to call twice.
   */
  stop(deadlineMs = DEFAULT_STOP_DEADLINE_MS): Promise<void> {
    this.stopping ??= this.close(Date.now() + deadlineMs);
    return this.stopping;
  }

  private async open(): Promise<void> {
    const consumer = await openConsumer(this.options);
    if (this.stopped) return;
    this.pump = new PullPump({
      consumer,
      capacity: this.options.concurrency,
      weigh: this.options.weigh,
      expiresMs: pullExpiresMs(this.options),
      onMessage: (msg, weight) => this.receive(msg, weight),
      onError: (error) =>
        this.logger.warn({ err: error, stream: this.options.stream, durable: this.options.durable }, 'pulling messages failed; retrying'),
    });
    this.pump.start();
  }

  private receive(msg: JsMsg, weight: number): void {
    if (this.stopped) {
      // Arrived while the pull was being closed: hand it straight back.
      msg.nak();
      this.pump?.release(weight);
      return;
    }
    const decoded = decode(msg, this.options.schema);
    if (!decoded.ok) {
      logInvalid(this.logger, this.options, msg, decoded);
      msg.term();
      this.pump?.release(weight);
      return;
    }
    const delivery = new Delivery(msg, decoded.data);
    this.inFlight.set(delivery, weight);
    void this.run(delivery);
  }

  private async run(delivery: Delivery<T>): Promise<void> {
    let disposition: Disposition;
    try {
      const returned: unknown = await this.options.handler(delivery);
      if (!isDisposition(returned)) throw new TypeError(`handler returned ${JSON.stringify(returned)}, not a disposition`);
      disposition = returned;
    } catch (error) {
      this.logger.error(
        { err: error, stream: this.options.stream, subject: delivery.subject, seq: delivery.seq, delivery_count: delivery.deliveryCount },
        'message handler failed; message nak-ed with delay',
      );
      disposition = { kind: 'nak', delayMs: retryDelayMs(delivery.deliveryCount) };
    }
    this.finish(delivery, disposition);
  }

  private finish(delivery: Delivery<T>, disposition: Disposition): void {
    if (delivery.settle(disposition)) {
      if (disposition.kind === 'term') {
        this.logger.warn(
          { stream: this.options.stream, subject: delivery.subject, seq: delivery.seq, reason: disposition.reason },
          'message terminated',
        );
      }
    } else {
      this.logger.warn(
        { stream: this.options.stream, subject: delivery.subject, seq: delivery.seq, disposition: disposition.kind },
        'handler finished after the stop deadline; its message was already handed back',
      );
    }
    const weight = this.inFlight.get(delivery);
    if (weight !== undefined) {
      this.inFlight.delete(delivery);
      this.pump?.release(weight);
      if (this.inFlight.size === 0) this.drained?.();
    }
  }

  private async close(deadline: number): Promise<void> {
    this.stopped = true;
    await this.starting?.catch(() => undefined);
    await this.pump?.stop();
    if (this.inFlight.size > 0) {
      const drained = new Promise<void>((resolve) => (this.drained = resolve));
      await Promise.race([drained, sleep(Math.max(0, deadline - Date.now()))]);
    }
    for (const delivery of this.inFlight.keys()) delivery.settle({ kind: 'nak' });
    this.inFlight.clear();
  }
}
