import { Inject, Injectable } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import { Pool } from 'pg';
import { MessagingConnection, OutboxRelay } from '@trawl/messaging';
import { Logger } from '@trawl/observability';
import { SERVICE_LOGGER, SERVICE_MESSAGING, ServiceRuntime } from '@trawl/service-kit';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from './coordinator.settings';
import { DispatcherService } from './frontier/dispatcher.service';
import { PageResultConsumer } from './page-results/page-result.consumer';
import { ReconcilerService } from './crawl-lifecycle/reconciler.service';

/** Token of the outbox relay's own pool (closed by the runtime once the relay has stopped). */
export const OUTBOX_POOL = Symbol('OUTBOX_POOL');

/** Starts the coordinator's loops after boot and hands everything back on shutdown. */
@Injectable()
export class CoordinatorRuntime extends ServiceRuntime {
  private kicks?: Subscription;
  private relay?: OutboxRelay;

  constructor(
    private readonly dispatcher: DispatcherService,
    private readonly results: PageResultConsumer,
    private readonly reconciler: ReconcilerService,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(OUTBOX_POOL) private readonly outboxPool: Pool,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected async startLoops(): Promise<void> {
    this.kicks = this.messaging.nc.subscribe(this.settings.topology.subjects.crawlKick, {
      callback: () => this.dispatcher.notify(),
    });
    this.relay = new OutboxRelay({ pool: this.outboxPool, js: this.messaging.js, logger: this.logger });
    this.relay.start();
    await this.results.start();
    this.dispatcher.start();
    this.reconciler.start(() => this.dispatcher.notify());
    this.logger.info('crawl coordinator started');
  }

  protected async stopLoops(): Promise<void> {
    this.kicks?.unsubscribe();
    await this.reconciler.stop();
    await this.dispatcher.stop();
    await this.results.stop(10_000);
    await this.relay?.stop();
    await this.outboxPool.end().catch(() => undefined);
  }
}
