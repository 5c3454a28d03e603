import { Inject, Injectable } from '@nestjs/common';
import type { Subscription } from '@nats-io/nats-core';
import { Pool } from 'pg';
import { MessagingConnection, OutboxRelay } from '@trawl/messaging';
import { Logger } from '@trawl/observability';
import { outboxRelayLoop, PeriodicLoop, SERVICE_LOGGER, SERVICE_MESSAGING, ServiceRuntime, StopCountdown } from '@trawl/service-kit';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from './coordinator.settings';
import { DispatcherService } from './frontier/dispatcher.service';
import { PageResultConsumer } from './page-results/page-result.consumer';
import { ReconcilerService } from './crawl-lifecycle/reconciler.service';
import { SitemapSeeder } from './sitemaps/sitemap-seeder.service';

/** Token of the outbox relay's own pool (closed by the runtime once the relay has stopped). */
export const OUTBOX_POOL = Symbol('OUTBOX_POOL');

/** Starts the coordinator's loops after boot and hands everything back on shutdown. */
@Injectable()
export class CoordinatorRuntime extends ServiceRuntime {
  private kicks?: Subscription;
  private relay?: PeriodicLoop;

  constructor(
    private readonly dispatcher: DispatcherService,
    private readonly results: PageResultConsumer,
    private readonly reconciler: ReconcilerService,
    private readonly seeder: SitemapSeeder,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(OUTBOX_POOL) private readonly outboxPool: Pool,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    super();
  }

  protected async startLoops(): Promise<void> {
    this.kicks = this.messaging.nc.subscribe(this.settings.topology.subjects.crawlKick, {
      callback: () => {
        this.dispatcher.notify();
        this.seeder.notify();
      },
    });
    this.relay = outboxRelayLoop(new OutboxRelay({ pool: this.outboxPool, js: this.messaging.js, logger: this.logger }), this.logger);
    this.relay.start();
    await this.results.start();
    this.dispatcher.start();
    this.reconciler.start(() => this.dispatcher.notify());
    this.seeder.start(() => this.dispatcher.notify());
    this.logger.info('crawl coordinator started');
  }

  protected async stopLoops(): Promise<void> {
    const countdown = StopCountdown.start(this.settings.stopDeadlines);
    this.kicks?.unsubscribe();
    await this.reconciler.stop(countdown.drainLeftMs());
    await this.seeder.stop(countdown.drainLeftMs());
    await this.dispatcher.stop(countdown.drainLeftMs());
    await this.results.stop(countdown.settleLeftMs());
    // Last: while the intake settles its last results, the relay still sends the events they wrote.
    await this.relay?.stop(countdown.settleLeftMs());
    await this.outboxPool.end().catch(() => undefined);
  }
}
