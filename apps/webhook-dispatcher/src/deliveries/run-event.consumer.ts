import { Inject, Injectable } from '@nestjs/common';
import { runWebhookEventV1, RunWebhookEventV1, webhookConsumerDefinition } from '@trawl/contracts';
import { Disposition, InboundMessage, MessageConsumer, MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { DispatcherMetrics } from '../dispatcher.metrics';
import { DeliveryPoller } from './delivery-poller';
import { DeliveryService } from './delivery.service';
import { DELIVERY_SETTINGS, type DeliverySettings } from './delivery.settings';

const FOREIGN_KEY_VIOLATION = '23503';
/** Longest an event is held and written again while Postgres is unreachable, in ms (then nak'ed). */
const DATABASE_DOWN_HOLD_MS = 40_000;
/** Run events taken in at once: each is one small insert. */
const INTAKE_CONCURRENCY = 16;

/**
 * Takes run events from the events stream into the delivery table. The message is acked only once
 * the delivery row is committed, so a crash loses no event; a redelivered event adds nothing.
 */
@Injectable()
export class RunEventConsumer {
  private readonly consumer: MessageConsumer<RunWebhookEventV1>;

  constructor(
    private readonly service: DeliveryService,
    private readonly poller: DeliveryPoller,
    private readonly metrics: DispatcherMetrics,
    @Inject(SERVICE_MESSAGING) messaging: MessagingConnection,
    @Inject(DELIVERY_SETTINGS) settings: Pick<DeliverySettings, 'topology'>,
    @Inject(SERVICE_LOGGER) logger: Logger,
  ) {
    const { stream, durable } = webhookConsumerDefinition(settings.topology);
    this.consumer = new MessageConsumer<RunWebhookEventV1>({
      js: messaging.js,
      stream,
      durable,
      concurrency: INTAKE_CONCURRENCY,
      schema: runWebhookEventV1,
      logger,
      handler: (msg) => this.handle(msg),
    });
  }

  start(): Promise<void> {
    return this.consumer.start();
  }

  /** Stops taking events; those under way may finish until `deadlineMs`, then they are nak'ed. Safe to call twice. */
  stop(deadlineMs: number): Promise<void> {
    return this.consumer.stop(deadlineMs);
  }

  private async handle(msg: InboundMessage<RunWebhookEventV1>): Promise<Disposition> {
    try {
      if (await this.service.accept(msg.data, { holdMs: DATABASE_DOWN_HOLD_MS, onHold: () => msg.working() })) {
        this.metrics.accepted.inc();
        this.poller.notify();
      }
      return { kind: 'ack' };
    } catch (error) {
      // The tenant is gone (deleted with its jobs): nobody is left to notify.
      if ((error as { code?: string }).code === FOREIGN_KEY_VIOLATION) return { kind: 'term', reason: 'tenant no longer exists' };
      throw error;
    }
  }
}
