import { Inject, Injectable } from '@nestjs/common';
import { autoTiersOf } from '@trawl/billing';
import { Database, resultEvenIfCommitUnknown } from '@trawl/persistence';
import { contextFromTraceParent, Logger, withSpan } from '@trawl/observability';
import { MessagingConnection, publishManyHeld } from '@trawl/messaging';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from '../coordinator.settings';
import { CoordinatorMetrics } from '../coordinator.metrics';
import { CrawlLifecycleRepository } from '../crawl-lifecycle/crawl-lifecycle.repository';
import { PeriodicLoop, SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { FrontierRepository } from './frontier.repository';
import { pageTaskMessages } from './task-messages';

/**
 * Moves queued frontier pages to fetch workers: claims them in Postgres (new attempt, lease), commits,
 * then publishes their tasks, up to `pagesPerTaskMessage` to a message (`pageTaskMessages`), each message
 * with a `Nats-Msg-Id` named after its pages' claims. Tasks NATS refused (a
 * restart, a failover) are held and published again after the reconnect, with the same msg id, so
 * the crawl goes on within seconds of NATS coming back rather than after the lease. A crash between
 * commit and publish loses nothing: the lease runs out and the reconciler queues the page again.
 * Keeps at most `dispatchWindow` pages in flight so leases do not run out while tasks wait.
 */
@Injectable()
export class DispatcherService {
  /** Rounds one after another while they publish, else every `dispatchPollMs` or when notified. */
  private readonly loop: PeriodicLoop;
  /** Ends a publish held through a NATS outage when the coordinator stops. */
  private readonly stopping = new AbortController();
  /** The last round stopped at the dispatch window: pages settling make room for more at once. */
  private windowFull = false;

  constructor(
    private readonly db: Database,
    private readonly frontier: FrontierRepository,
    private readonly crawls: CrawlLifecycleRepository,
    private readonly metrics: CoordinatorMetrics,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    metrics.countRunningWith(() => crawls.countRunning(db));
    this.loop = new PeriodicLoop({
      name: 'dispatch round',
      intervalMs: settings.dispatchPollMs,
      // A round that published may have left pages it had no room for: the next goes at once.
      pass: async () => ({ more: (await this.dispatchRound()) > 0 }),
      logger,
    });
  }

  /** Safe to call twice; does nothing after `stop()`. */
  start(): void {
    this.loop.start();
  }

  /** Stops dispatching: ends a held publish, and waits up to `deadlineMs` for the round under way. Safe to call twice. */
  async stop(deadlineMs: number): Promise<void> {
    this.stopping.abort();
    await this.loop.stop(deadlineMs);
  }

  /** Dispatch now (new crawl, new links) instead of at the next poll. */
  notify(): void {
    this.loop.wake();
  }

  /**
   * Pages were settled (their results applied). When the last round stopped at the window, the
   * room they left is filled now: once a crawl has found all its pages, no new links wake the
   * dispatcher, and waiting for the poll left workers idle for up to `dispatchPollMs` per window.
   */
  roomFreed(): void {
    if (this.windowFull) this.loop.wake();
  }

  /** One dispatch round; returns the number of pages published. */
  async dispatchRound(): Promise<number> {
    const inFlight = await this.frontier.inFlight(this.db, this.settings.dispatchWindow);
    this.metrics.inFlight.set(inFlight);
    let room = this.settings.dispatchWindow - inFlight;
    this.windowFull = room <= 0;
    if (this.windowFull) return 0;
    const crawlIds = await this.frontier.crawlsWithWork(this.db, 64);
    let published = 0;
    for (const crawlId of crawlIds) {
      if (room <= 0) break;
      const share = Math.min(room, this.settings.dispatchPerCrawl);
      const count = await this.dispatchCrawl(crawlId, share);
      room -= count;
      published += count;
    }
    this.windowFull = room <= 0;
    return published;
  }

  private async dispatchCrawl(crawlId: string, share: number): Promise<number> {
    // A claim whose COMMIT lost its answer (Postgres crashed under it) is published all the same:
    // had it committed, unpublished, its pages would wait out the lease (5 minutes) for nothing.
    const claimed = await resultEvenIfCommitUnknown(
      this.db.transaction(async (sql) => {
        const crawl = await this.frontier.lockForDispatch(sql, crawlId);
        if (!crawl) return null;
        if (crawl.outOfCredits) {
          await this.crawls.finish(sql, crawl, { kind: 'failed', code: 'insufficient_credits', detail: 'The account ran out of credits.' });
          this.metrics.crawlsFinished.inc({ status: 'failed', reason: 'insufficient_credits' });
          return null;
        }
        // robots.txt's Crawl-delay: one page at a time, the delay apart (docs/decisions/crawl-api.md, "robots.txt").
        const paced = crawl.crawlDelayMs !== null;
        if (paced && (crawl.pageInFlight || crawl.msUntilNextDispatch > 0)) return null;
        const pages = await this.frontier.claim(sql, crawlId, Math.min(paced ? 1 : share, crawl.budget), this.settings.leaseMs);
        if (paced && pages.length > 0) await this.frontier.delayNextDispatch(sql, crawlId, crawl.crawlDelayMs!);
        return { crawl, pages };
      }),
      (error) =>
        this.logger.warn({ err: error, crawl_id: crawlId }, 'claim commit unconfirmed (database lost); publishing its pages anyway'),
    );
    if (!claimed || claimed.pages.length === 0) return 0;
    const { crawl, pages } = claimed;
    const autoTiers = autoTiersOf(crawl.planFeatures);
    const parent = contextFromTraceParent(crawl.traceParent);
    await withSpan('crawl.dispatch', { parent, attributes: { 'trawl.crawl_id': crawl.id, 'trawl.pages': pages.length } }, async () => {
      try {
        await publishManyHeld(
          this.messaging,
          pageTaskMessages(
            pages.map((page) => ({
              page,
              task: {
                v: 1,
                crawl_id: crawl.id,
                tenant_id: crawl.tenantId,
                frontier_id: page.frontierId,
                attempt: page.attempt,
                url: page.url,
                depth: page.depth,
                wants_links: page.wantsLinks,
                wants_content: page.wantsContent,
                scope_domain: crawl.scopeDomain,
                // Each page is a Fetch request in adaptive mode (Crawl spec §1), within the plan's tiers.
                auto_tiers: autoTiers,
                ...(crawl.respectRobots && { respect_robots: true }),
                ...(crawl.maxAge !== null && { max_age: crawl.maxAge }),
              },
            })),
            this.settings.topology.subjects.crawlPageTask,
            this.settings.pagesPerTaskMessage,
          ),
          // Held at most half the lease: past that, the reconciler's queueing again is as quick.
          {
            holdMs: Math.max(1_000, this.settings.leaseMs / 2),
            signal: this.stopping.signal,
            onHold: (error, held) =>
              this.logger.warn({ err: error, crawl_id: crawl.id, held }, 'NATS refused page tasks; holding them until it is back'),
          },
        );
      } catch (error) {
        // Not a span error: the claims stay dispatched, their leases run out and the reconciler
        // queues them again.
        this.logger.warn({ err: error, crawl_id: crawl.id }, 'publishing page tasks failed');
      }
    });
    this.metrics.pagesDispatched.inc(pages.length);
    return pages.length;
  }
}
