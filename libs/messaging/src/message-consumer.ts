import type { ConsumerMessages, JsMsg } from '@nats-io/jetstream';
import { ConsumerRunnerOptions, Disposition, InboundMessage, retryDelayMs, settle, toInbound } from './inbound-message';

/**
 * Pulls from a durable consumer and runs `handler` on up to `concurrency` messages at a time.
 * On stop: no more pulls, in-flight handlers get until the deadline, then what is left is nak'ed so
 * another subscriber takes it at once.
 */
export class MessageConsumer<T> {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private readonly inFlight = new Map<JsMsg, Promise<void>>();
  private stopping = false;

  constructor(
    private readonly options: ConsumerRunnerOptions<T> & {
      concurrency: number;
      handler: (msg: InboundMessage<T>) => Promise<Disposition>;
    },
  ) {}

  async start(): Promise<void> {
    if (this.messages) return;
    this.stopping = false;
    const consumer = await this.options.js.consumers.get(this.options.stream, this.options.durable);
    this.messages = await consumer.consume({ max_messages: this.options.concurrency });
    this.loop = this.run(this.messages);
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    for await (const msg of messages) {
      if (this.stopping) {
        msg.nak();
        continue;
      }
      while (this.inFlight.size >= this.options.concurrency) await Promise.race(this.inFlight.values());
      const work = this.handle(msg).finally(() => this.inFlight.delete(msg));
      this.inFlight.set(msg, work);
    }
  }

  private async handle(msg: JsMsg): Promise<void> {
    const inbound = toInbound(msg, this.options.schema, this.options.logger);
    if (!inbound) return;
    let disposition: Disposition;
    try {
      disposition = await this.options.handler(inbound);
    } catch (error) {
      this.options.logger?.error({ err: error, subject: msg.subject }, 'message handler failed');
      disposition = { kind: 'nak', delayMs: retryDelayMs(inbound.deliveryCount) };
    }
    if (!this.stopping || this.inFlight.has(msg)) settle(msg, disposition);
  }

  /** Stops pulling; waits up to `deadlineMs` for handlers, then naks the rest. Safe twice. */
  async stop(deadlineMs = 10_000): Promise<void> {
    if (!this.messages) return;
    this.stopping = true;
    const messages = this.messages;
    this.messages = undefined;
    await messages.close().catch(() => undefined);
    const all = Promise.all(this.inFlight.values());
    const timedOut = await Promise.race([all.then(() => false), new Promise<boolean>((r) => setTimeout(() => r(true), deadlineMs).unref())]);
    if (timedOut) {
      for (const msg of this.inFlight.keys()) msg.nak();
      this.inFlight.clear();
    }
    await this.loop?.catch(() => undefined);
  }
}
