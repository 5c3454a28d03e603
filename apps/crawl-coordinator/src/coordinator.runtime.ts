import { BeforeApplicationShutdown, Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import { Pool } from 'pg';
import { OutboxRelay } from '@trawl/messaging';
import { Database } from '@trawl/persistence';
import { Logger } from '@trawl/observability';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from './coordinator.settings';
import { COORDINATOR_LOGGER } from './coordinator.logger';
import { MESSAGING, CoordinatorMessaging } from './messaging/coordinator-messaging';
import { DispatcherService } from './frontier/dispatcher.service';
import { PageResultConsumer } from './page-results/page-result.consumer';
import { ReconcilerService } from './crawl-lifecycle/reconciler.service';

export const OUTBOX_POOL = Symbol('OUTBOX_POOL');

/** Starts the coordinator's loops after boot and hands everything back on shutdown. */
@Injectable()
export class CoordinatorRuntime implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private kicks?: Subscription;
  private relay?: OutboxRelay;

  constructor(
    private readonly db: Database,
    private readonly dispatcher: DispatcherService,
    private readonly results: PageResultConsumer,
    private readonly reconciler: ReconcilerService,
    @Inject(MESSAGING) private readonly messaging: CoordinatorMessaging,
    @Inject(OUTBOX_POOL) private readonly outboxPool: Pool,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(COORDINATOR_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
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

  async beforeApplicationShutdown(): Promise<void> {
    this.kicks?.unsubscribe();
    await this.reconciler.stop();
    await this.dispatcher.stop();
    await this.results.stop(10_000);
    await this.relay?.stop();
    await this.messaging.close();
    await this.outboxPool.end().catch(() => undefined);
    await this.db.dataSource.destroy().catch(() => undefined);
  }
}
