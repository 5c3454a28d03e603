import { runWebhookEventV1, RunWebhookEventV1 } from '@trawl/contracts';
import { Disposition, InboundMessage, MessageConsumer } from '@trawl/messaging';
import type { JetStreamClient } from '@nats-io/jetstream';
import type { Logger } from '@trawl/observability';
import type { DispatcherMetrics } from '../dispatcher.metrics';
import type { DeliveryService } from './delivery.service';

const FOREIGN_KEY_VIOLATION = '23503';
/** Longest an event is held and written again while Postgres is unreachable, in ms (then nak'ed). */
const DATABASE_DOWN_HOLD_MS = 40_000;

/**
 * Takes run events from the events stream into the delivery table. The message is acked only once
 * the delivery row is committed, so a crash loses no event; a redelivered event adds nothing.
 */
export class RunEventConsumer {
  private readonly consumer: MessageConsumer<RunWebhookEventV1>;

  constructor(
    options: { js: JetStreamClient; stream: string; durable: string; concurrency: number },
    private readonly service: DeliveryService,
    private readonly onAccepted: () => void,
    private readonly metrics: DispatcherMetrics,
    logger: Logger,
  ) {
    this.consumer = new MessageConsumer<RunWebhookEventV1>({
      ...options,
      schema: runWebhookEventV1,
      logger,
      handler: (msg) => this.handle(msg),
    });
  }

  start(): Promise<void> {
    return this.consumer.start();
  }

  stop(deadlineMs?: number): Promise<void> {
    return this.consumer.stop(deadlineMs);
  }

  private async handle(msg: InboundMessage<RunWebhookEventV1>): Promise<Disposition> {
    try {
      if (await this.service.accept(msg.data, { holdMs: DATABASE_DOWN_HOLD_MS, onHold: () => msg.working() })) {
        this.metrics.accepted.inc();
        this.onAccepted();
      }
      return { kind: 'ack' };
    } catch (error) {
      // The tenant is gone (deleted with its jobs): nobody is left to notify.
      if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return { kind: 'term', reason: 'tenant no longer exists' };
      throw error;
    }
  }
}
