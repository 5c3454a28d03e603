import { Inject, Injectable } from '@nestjs/common';
import { type ExtractPreparationV1, extractPreparationV1 } from '@trawl/contracts';
import { type Disposition, type InboundMessage, MessageConsumer, MessagingConnection, retryDelayMs } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { DomainPreparationService } from './domain-preparation.service';
import { PreparationsMetrics } from './preparations.metrics';
import { PREPARATION_SETTINGS, type PreparationSettings } from './preparation.settings';

/** A preparation between two pages may wait on a slow page and a long crawl delay: it says it is alive this often. */
const HEARTBEAT_MS = 20_000;

/**
 * Takes preparation messages (`ExtractPreparationV1`) and has them run. Ack once the attempt is
 * settled, served, or not this message's; a failure that may pass (Postgres away, a bug that a
 * retry shows) is nak'ed with a growing delay, and its deliveries are counted in Postgres, which
 * ends an attempt that keeps failing. Start and stop are safe to call twice.
 */
@Injectable()
export class PreparationConsumer {
  private consumer?: MessageConsumer<ExtractPreparationV1>;

  constructor(
    private readonly preparation: DomainPreparationService,
    private readonly metrics: PreparationsMetrics,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(PREPARATION_SETTINGS) private readonly settings: PreparationSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    if (this.consumer) return;
    const { topology } = this.settings;
    this.consumer = new MessageConsumer<ExtractPreparationV1>({
      js: this.messaging.js,
      stream: topology.streams.extractPreparations,
      durable: topology.consumers.extractPreparers,
      schema: extractPreparationV1,
      logger: this.logger,
      concurrency: this.settings.concurrency,
      handler: (msg) => this.handle(msg),
    });
    await this.consumer.start();
  }

  /** Stops taking preparations; those under way may go on until `deadlineMs`, then they are nak'ed. */
  async stop(deadlineMs: number): Promise<void> {
    await this.consumer?.stop(deadlineMs);
    this.consumer = undefined;
  }

  async handle(msg: InboundMessage<ExtractPreparationV1>): Promise<Disposition> {
    const heartbeat = setInterval(() => msg.working(), HEARTBEAT_MS);
    try {
      await this.preparation.prepare(msg.data.domain, msg.data.attempt, () => msg.working());
      return { kind: 'ack' };
    } catch (error) {
      this.metrics.deliveries.inc({ outcome: 'retried' });
      this.logger.error({ err: error, domain: msg.data.domain, attempt: msg.data.attempt }, 'extract preparation failed; retrying');
      return { kind: 'nak', delayMs: retryDelayMs(msg.deliveryCount) };
    } finally {
      clearInterval(heartbeat);
    }
  }
}
