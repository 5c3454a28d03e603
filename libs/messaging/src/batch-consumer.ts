import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { ConsumerRunnerOptions, Disposition, InboundMessage, retryDelayMs, settle, toInbound } from './inbound-message';

/**
 * Pulls from a durable consumer and hands messages to `handler` in batches of at most `maxBatch`,
 * waiting at most `maxWaitMs` for a batch to fill once its first message is there. One batch at a
 * time, so a batch can be one database transaction. Buffers at most two batches ahead.
 */
export class BatchConsumer<T> {
  private messages?: ConsumerMessages;
  private readonly buffer: JsMsg[] = [];
  private wakeProcessor?: () => void;
  private wakeReader?: () => void;
  private reader?: Promise<void>;
  private processor?: Promise<void>;
  private stopping = false;

  constructor(
    private readonly options: ConsumerRunnerOptions<T> & {
      maxBatch: number;
      maxWaitMs: number;
      handler: (msgs: InboundMessage<T>[]) => Promise<Disposition[]>;
    },
  ) {}

  async start(): Promise<void> {
    if (this.messages) return;
    this.stopping = false;
    const consumer = await this.options.js.consumers.get(this.options.stream, this.options.durable);
    this.messages = await consumer.consume({ max_messages: this.options.maxBatch * 2 });
    this.reader = this.read(this.messages);
    this.processor = this.process();
  }

  private async read(messages: ConsumerMessages): Promise<void> {
    for await (const msg of messages) {
      if (this.stopping) {
        msg.nak();
        continue;
      }
      this.buffer.push(msg);
      this.wakeProcessor?.();
      while (this.buffer.length >= this.options.maxBatch * 2 && !this.stopping) {
        await new Promise<void>((resolve) => (this.wakeReader = resolve));
      }
    }
  }

  private waitForMessages(timeoutMs: number, enough: number): Promise<void> {
    if (this.buffer.length >= enough || this.stopping) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      const self = this;
      function done() {
        clearTimeout(timer);
        self.wakeProcessor = undefined;
        resolve();
      }
      this.wakeProcessor = () => {
        if (this.buffer.length >= enough || this.stopping) done();
      };
    });
  }

  private async process(): Promise<void> {
    while (!this.stopping) {
      await this.waitForMessages(1_000, 1);
      if (this.stopping) break;
      if (this.buffer.length === 0) continue;
      if (this.buffer.length < this.options.maxBatch) await this.waitForMessages(this.options.maxWaitMs, this.options.maxBatch);
      const batch = this.buffer.splice(0, this.options.maxBatch);
      this.wakeReader?.();
      this.wakeReader = undefined;
      const valid: { msg: JsMsg; inbound: InboundMessage<T> }[] = [];
      for (const msg of batch) {
        const inbound = toInbound(msg, this.options.schema, this.options.logger);
        if (inbound) valid.push({ msg, inbound });
      }
      if (valid.length === 0) continue;
      let dispositions: Disposition[];
      try {
        dispositions = await this.options.handler(valid.map((v) => v.inbound));
      } catch (error) {
        this.options.logger?.error({ err: error, batch: valid.length }, 'batch handler failed');
        dispositions = valid.map((v) => ({ kind: 'nak', delayMs: retryDelayMs(v.inbound.deliveryCount) }));
      }
      valid.forEach((v, i) => settle(v.msg, dispositions[i] ?? { kind: 'nak' }));
    }
  }

  /** Stops pulling, lets the batch being handled finish (until the deadline), naks buffered messages. */
  async stop(deadlineMs = 10_000): Promise<void> {
    if (!this.messages) return;
    this.stopping = true;
    const messages = this.messages;
    this.messages = undefined;
    this.wakeProcessor?.();
    this.wakeReader?.();
    await messages.close().catch(() => undefined);
    await Promise.race([this.processor, new Promise((r) => setTimeout(r, deadlineMs).unref())]);
    for (const msg of this.buffer.splice(0)) msg.nak();
    await this.reader?.catch(() => undefined);
  }
}
