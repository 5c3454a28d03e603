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
import { DEFAULT_STOP_DEADLINE_MS } from './message-consumer';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { PullPump } from './pull-pump';
import { retryDelayMs } from './redelivery';
import { logInvalid, openConsumer, pullExpiresMs, requirePositiveInteger, sleep } from './runner-support';

export interface BatchConsumerOptions<T> extends ConsumerRunnerOptions<T> {
  /** Most messages in one batch. */
  maxBatch: number;
  /** How long a batch may wait to fill once its first message is there, in ms (0: hand over what is there). */
  maxWaitMs: number;
  /**
   * Decides a batch: one disposition per message, in the same order. A handler that throws (or
   * answers with the wrong number of dispositions) is logged and every message of the batch
   * nak'ed after `retryDelayMs(deliveryCount)` (1 s doubling, ≤ 30 s).
   */
  handler: (msgs: InboundMessage<T>[]) => Promise<Disposition[]>;
}

interface Queued<T> {
  delivery: Delivery<T>;
  arrivedAt: number;
}

/**
 * Hands messages of a durable pull consumer to `handler` in batches of at most `maxBatch`, one
 * batch at a time (so a batch can be one database transaction). While a batch is handled, the next
 * one is already pulled: at most `2 × maxBatch` messages are held. Invalid payloads are termed and
 * never reach the handler.
 */
export class BatchConsumer<T> {
  private readonly logger: MessagingLogger;
  private readonly queue: Queued<T>[] = [];
  private current: Delivery<T>[] = [];
  private pump?: PullPump;
  private loop?: Promise<void>;
  private starting?: Promise<void>;
  private stopping?: Promise<void>;
  private stopped = false;
  private wake?: () => void;

  constructor(private readonly options: BatchConsumerOptions<T>) {
    requirePositiveInteger('maxBatch', options.maxBatch);
    if (!(options.maxWaitMs >= 0)) {
      throw new MessagingError(MessagingErrorCode.InvalidOption, `maxWaitMs must be ≥ 0, got ${options.maxWaitMs}`);
    }
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
   * Stops pulling, naks the messages not yet handed over, lets the batch being handled finish until
   * `deadlineMs` (default 10 000 ms) has passed, then naks what is left of it. Safe to call twice.
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
      capacity: 2 * this.options.maxBatch,
      expiresMs: pullExpiresMs(this.options),
      onMessage: (msg) => this.receive(msg),
      onError: (error) =>
        this.logger.warn({ err: error, stream: this.options.stream, durable: this.options.durable }, 'pulling messages failed; retrying'),
    });
    this.loop = this.run();
    this.pump.start();
  }

  private receive(msg: JsMsg): void {
    if (this.stopped) {
      msg.nak();
      this.pump?.release();
      return;
    }
    const decoded = decode(msg, this.options.schema);
    if (!decoded.ok) {
      logInvalid(this.logger, this.options, msg, decoded);
      msg.term();
      this.pump?.release();
      return;
    }
    this.queue.push({ delivery: new Delivery(msg, decoded.data), arrivedAt: Date.now() });
    this.wake?.();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const batch = await this.nextBatch();
      if (batch.length > 0) await this.handle(batch);
    }
  }

  /** Waits for a first message, then until the batch is full or the first one waited `maxWaitMs`. */
  private async nextBatch(): Promise<Delivery<T>[]> {
    while (this.queue.length === 0 && !this.stopped) await this.sleepUntilWoken();
    while (this.queue.length > 0 && this.queue.length < this.options.maxBatch && !this.stopped) {
      const left = this.queue[0].arrivedAt + this.options.maxWaitMs - Date.now();
      if (left <= 0) break;
      await this.sleepUntilWoken(left);
    }
    if (this.stopped) return [];
    return this.queue.splice(0, this.options.maxBatch).map((queued) => queued.delivery);
  }

  private sleepUntilWoken(timeoutMs?: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wake === done) this.wake = undefined;
        resolve();
      };
      const timer = timeoutMs === undefined ? undefined : setTimeout(done, timeoutMs);
      this.wake = done;
    });
  }

  private async handle(batch: Delivery<T>[]): Promise<void> {
    this.current = batch;
    let dispositions: Disposition[];
    try {
      const returned: unknown = await this.options.handler(batch);
      if (!Array.isArray(returned) || returned.length !== batch.length || !returned.every(isDisposition)) {
        const answer = Array.isArray(returned) ? `${returned.length} values` : typeof returned;
        throw new TypeError(`handler answered ${answer} for ${batch.length} messages`);
      }
      dispositions = returned;
    } catch (error) {
      this.logger.error(
        { err: error, stream: this.options.stream, durable: this.options.durable, batch: batch.length },
        'batch handler failed; batch nak-ed with delay',
      );
      dispositions = batch.map((delivery) => ({ kind: 'nak', delayMs: retryDelayMs(delivery.deliveryCount) }));
    }
    let late = 0;
    batch.forEach((delivery, i) => {
      const disposition = dispositions[i];
      if (!delivery.settle(disposition)) late++;
      else if (disposition.kind === 'term') {
        this.logger.warn(
          { stream: this.options.stream, subject: delivery.subject, seq: delivery.seq, reason: disposition.reason },
          'message terminated',
        );
      }
    });
    if (late > 0) {
      this.logger.warn(
        { stream: this.options.stream, late },
        'batch handler finished after the stop deadline; its messages were already handed back',
      );
    }
    if (this.current === batch) {
      this.current = [];
      this.pump?.release(batch.length);
    }
  }

  private async close(deadline: number): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.starting?.catch(() => undefined);
    await this.pump?.stop();
    for (const queued of this.queue.splice(0)) queued.delivery.settle({ kind: 'nak' });
    if (this.loop) await Promise.race([this.loop, sleep(Math.max(0, deadline - Date.now()))]);
    for (const delivery of this.current) delivery.settle({ kind: 'nak' });
    this.current = [];
  }
}
