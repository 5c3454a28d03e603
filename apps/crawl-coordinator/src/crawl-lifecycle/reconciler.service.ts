import { Inject, Injectable } from '@nestjs/common';
import { Database } from '@trawl/persistence';
import { Logger } from '@trawl/observability';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from '../coordinator.settings';
import { CoordinatorMetrics } from '../coordinator.metrics';
import { FrontierRepository } from '../frontier/frontier.repository';
import { PeriodicLoop, SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import type { MessagingConnection } from '@trawl/messaging';
import { CrawlLifecycleRepository } from './crawl-lifecycle.repository';
import { CrawlLifecycleService } from './crawl-lifecycle.service';

/**
 * Postgres is the truth, JetStream only transport: this loop hands out again every page whose claim
 * ran out (its task or result was lost, its worker died, NATS restarted), repeats crawl-ended notices to
 * workers, drops in-flight pages of ended crawls once they can no longer count, and settles running
 * crawls nothing else will touch.
 * Every step is row-locked and idempotent, so any number of coordinators may run it.
 */
@Injectable()
export class ReconcilerService {
  /** A pass every `reconcileIntervalMs`, the first one interval after start. */
  private readonly loop: PeriodicLoop;
  /** Told when a pass queued pages again (`start`). */
  private onWork?: () => void;

  constructor(
    private readonly db: Database,
    private readonly frontier: FrontierRepository,
    private readonly crawls: CrawlLifecycleRepository,
    private readonly lifecycle: CrawlLifecycleService,
    private readonly metrics: CoordinatorMetrics,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
  ) {
    this.loop = new PeriodicLoop({
      name: 'reconcile pass',
      intervalMs: settings.reconcileIntervalMs,
      firstPass: 'after-interval',
      pass: async () => {
        if ((await this.reconcileOnce()) > 0) this.onWork?.();
      },
      logger,
    });
  }

  /** Reconciles in the background; `onWork` is told when a pass queued pages again. Safe to call twice. */
  start(onWork: () => void): void {
    this.onWork = onWork;
    this.loop.start();
  }

  /** Waits up to `deadlineMs` for the pass under way. Safe to call twice. */
  stop(deadlineMs: number): Promise<void> {
    return this.loop.stop(deadlineMs);
  }

  /** One pass; returns how many pages went back to the queue. */
  async reconcileOnce(): Promise<number> {
    let requeuedTotal = 0;
    for (const crawlId of await this.frontier.crawlsWithExpiredLeases(this.db, 100)) {
      requeuedTotal += await this.db.transaction(async (sql) => {
        const [crawl] = await this.crawls.lockCrawls(sql, [crawlId]);
        if (!crawl || crawl.status !== 'running') return 0;
        const { requeued, abandoned, seedAbandoned } = await this.frontier.reclaimExpired(sql, crawlId, this.settings.maxAttempts);
        this.metrics.leasesReclaimed.inc({ outcome: 'requeued' }, requeued);
        this.metrics.leasesReclaimed.inc({ outcome: 'abandoned' }, abandoned);
        if (requeued + abandoned > 0) {
          this.logger.info({ crawl_id: crawlId, requeued, abandoned }, 'expired page claims reclaimed');
        }
        crawl.pagesDispatched -= requeued;
        await this.lifecycle.settle(sql, crawl, seedAbandoned ? 'failed' : 'fetched');
        return requeued;
      });
    }
    // Workers that missed a crawl's end notice (restarted, reconnecting) hear it again, so tasks
    // still queued for a crawl that fetches no more pages are skipped rather than fetched.
    for (const crawlId of await this.frontier.endedCrawlsStillDispatched(this.db, this.settings.stopWindowMs, 100)) {
      this.messaging.nc.publish(this.settings.topology.subjects.crawlStopped, JSON.stringify({ crawl_id: crawlId }));
    }
    for (const crawlId of await this.frontier.endedCrawlsWithInFlight(this.db, this.settings.stopWindowMs, 100)) {
      await this.db.transaction(async (sql) => {
        await this.crawls.lockCrawls(sql, [crawlId]);
        const dropped = await this.frontier.dropInFlight(sql, crawlId);
        if (dropped > 0) this.logger.info({ crawl_id: crawlId, dropped }, 'in-flight pages of an ended crawl dropped');
      });
    }
    for (const crawlId of await this.crawls.runningCrawlIds(this.db, 200)) {
      await this.db.transaction(async (sql) => {
        const [crawl] = await this.crawls.lockCrawls(sql, [crawlId]);
        if (crawl) await this.lifecycle.settle(sql, crawl);
      });
    }
    return requeuedTotal;
  }
}
