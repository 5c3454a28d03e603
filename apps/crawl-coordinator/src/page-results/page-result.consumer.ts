import { Inject, Injectable } from '@nestjs/common';
import { crawlPageResultBatchV1, CrawlPageResultBatchV1, CrawlPageResultV1 } from '@trawl/contracts';
import { BatchConsumer, Disposition, groupsWithinBytes, InboundMessage, MessagingConnection } from '@trawl/messaging';
import { Logger } from '@trawl/observability';
import { isConnectionLoss, retryWhileDatabaseDown } from '@trawl/persistence';
import { COORDINATOR_SETTINGS, CoordinatorSettings } from '../coordinator.settings';
import { CoordinatorMetrics } from '../coordinator.metrics';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { DispatcherService } from '../frontier/dispatcher.service';
import { ContentFailure, PageResultService } from './page-result.service';
import { isBodyStoreDown, SpilledContents, SPILLED_BYTES_PER_APPLY } from './spilled-contents';
import { IntakeFailures } from './intake-failures';

/** Failed attempts at applying a crawl's page results before the crawl fails with `internal_error`. */
const INTAKE_ATTEMPTS = 5;
/**
 * How long a batch is held and applied again while Postgres is unreachable (a restart, a
 * switchover), in ms, its messages kept from redelivery meanwhile; then it is handed back.
 */
const DATABASE_DOWN_HOLD_MS = 40_000;
/** Delay before a batch handed back after a database outage comes back, in ms. */
const DATABASE_DOWN_RETRY_MS = 2_000;

/**
 * Takes page results from JetStream in batches and hands them to the intake service; a batch is
 * acknowledged only after its transaction commits, and nak'ed with a delay when it fails.
 */
@Injectable()
export class PageResultConsumer {
  private consumer?: BatchConsumer<CrawlPageResultBatchV1>;
  private readonly failures = new IntakeFailures(INTAKE_ATTEMPTS);
  private readonly contents: SpilledContents;

  constructor(
    private readonly intake: PageResultService,
    private readonly dispatcher: DispatcherService,
    private readonly metrics: CoordinatorMetrics,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(COORDINATOR_SETTINGS) private readonly settings: CoordinatorSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.contents = new SpilledContents(messaging, settings.topology);
  }

  async start(): Promise<void> {
    if (this.consumer) return;
    this.consumer = new BatchConsumer<CrawlPageResultBatchV1>({
      js: this.messaging.js,
      stream: this.settings.topology.streams.crawlResults,
      durable: this.settings.topology.consumers.crawlCoordinators,
      schema: crawlPageResultBatchV1,
      logger: this.logger,
      maxBatch: this.settings.resultBatch,
      maxWaitMs: this.settings.resultWaitMs,
      handler: async (messages): Promise<Disposition[]> => {
        const stopTimer = this.metrics.intakeBatchSeconds.startTimer();
        try {
          const results = distinctResults(messages);
          let warned = false;
          await retryWhileDatabaseDown(() => this.applyAndAnnounce(results), {
            holdMs: DATABASE_DOWN_HOLD_MS,
            onRetry: (error) => {
              if (!warned)
                this.logger.warn({ err: error, batch: messages.length }, 'database unreachable; holding page results until it is back');
              warned = true;
              for (const message of messages) message.working();
            },
          });
          for (const crawlId of new Set(results.map((r) => r.crawl_id))) this.failures.succeeded(crawlId);
          return messages.map(() => ({ kind: 'ack' }));
        } catch (error) {
          if (isConnectionLoss(error) || isBodyStoreDown(error)) {
            // Postgres restarting (or NATS, for spilled HTML) says nothing about the results: no crawl is blamed for it.
            this.logger.warn({ err: error, batch: messages.length }, 'database or body store unreachable; page results handed back');
            return messages.map(() => ({ kind: 'nak', delayMs: DATABASE_DOWN_RETRY_MS }));
          }
          this.logger.error({ err: error, batch: messages.length }, 'applying page results failed; retrying crawl by crawl');
          return this.applyCrawlByCrawl(messages);
        } finally {
          stopTimer();
        }
      },
    });
    await this.consumer.start();
  }

  /**
   * Applies results in one transaction, or in several when their spilled HTML weighs more than
   * `SPILLED_BYTES_PER_APPLY`; each group's spilled HTML is read just before and purged just after
   * its commit. A group applied before a later one failed is applied again on redelivery, which
   * changes nothing.
   */
  private async applyAndAnnounce(results: CrawlPageResultV1[]): Promise<void> {
    for (const group of groupsWithinBytes(results, (r) => r.content_ref?.bytes ?? 0, SPILLED_BYTES_PER_APPLY)) {
      const outcome = await this.intake.apply(await this.contents.load(group));
      if (outcome.crawlsWithNewWork.length > 0) this.dispatcher.notify();
      else if (outcome.applied > 0) this.dispatcher.roomFreed();
      // After the commit: tasks of an ended crawl still queued for workers are skipped, not fetched.
      for (const crawlId of outcome.crawlsEnded) {
        this.messaging.nc.publish(this.settings.topology.subjects.crawlStopped, JSON.stringify({ crawl_id: crawlId }));
      }
      this.logContentFailures(outcome.contentFailures);
      await this.contents.purge(group, (error, result) =>
        this.logger.warn(
          { err: error, crawl_id: result.crawl_id, frontier_id: result.frontier_id },
          'could not purge spilled page HTML; its max age will',
        ),
      );
    }
  }

  /** The API says only `failed`; the reasons worth an operator's eye go to the log. */
  private logContentFailures(failures: ContentFailure[]): void {
    for (const { crawlId, frontierId, reason } of failures) {
      const fields = { crawl_id: crawlId, frontier_id: frontierId, reason };
      if (reason === 'spilled_content_lost')
        this.logger.warn(fields, "kept page's HTML expired or vanished before it was stored; content failed");
      else if (reason === 'body_too_large')
        this.logger.info(fields, "kept page is larger than the workers' MAX_BODY_BYTES; content failed");
      else this.logger.debug(fields, 'kept page brought no HTML; content failed');
    }
  }

  /**
   * A failed batch is applied again one crawl at a time, so one crawl's bad result cannot hold up
   * the others; a crawl whose results keep failing ends `failed` with `internal_error`.
   */
  private async applyCrawlByCrawl(messages: InboundMessage<CrawlPageResultBatchV1>[]): Promise<Disposition[]> {
    const verdicts = new Map<string, Disposition>();
    const all = distinctResults(messages);
    for (const crawlId of new Set(all.map((r) => r.crawl_id))) {
      const results = all.filter((r) => r.crawl_id === crawlId);
      try {
        await this.applyAndAnnounce(results);
        this.failures.succeeded(crawlId);
        verdicts.set(crawlId, { kind: 'ack' });
      } catch (error) {
        if (isConnectionLoss(error) || isBodyStoreDown(error)) {
          verdicts.set(crawlId, { kind: 'nak', delayMs: DATABASE_DOWN_RETRY_MS });
          continue;
        }
        if (!this.failures.failed(crawlId)) {
          verdicts.set(crawlId, { kind: 'nak', delayMs: 2_000 });
          continue;
        }
        this.logger.error({ err: error, crawl_id: crawlId }, 'page results of a crawl keep failing; crawl failed');
        try {
          await this.intake.failCrawl(crawlId, 'The crawl stopped on a service-side failure.');
          this.messaging.nc.publish(this.settings.topology.subjects.crawlStopped, JSON.stringify({ crawl_id: crawlId }));
          verdicts.set(crawlId, { kind: 'ack' });
        } catch (failError) {
          this.logger.error({ err: failError, crawl_id: crawlId }, 'could not mark the crawl failed');
          verdicts.set(crawlId, { kind: 'nak', delayMs: 5_000 });
        }
      }
    }
    // A message carrying results of several crawls is acked only when all of them were applied;
    // its results that were applied already are ignored when it comes back.
    return messages.map((m) => {
      const own = [...new Set(m.data.results.map((r) => r.crawl_id))].map((id) => verdicts.get(id) ?? { kind: 'nak' as const });
      return own.find((v) => v.kind !== 'ack') ?? { kind: 'ack' };
    });
  }

  async stop(deadlineMs: number): Promise<void> {
    await this.consumer?.stop(deadlineMs);
    this.consumer = undefined;
  }
}

/**
 * The results of a batch of messages, each claim (frontier id, attempt) once: a task delivered twice
 * can be answered twice, and one statement must not touch the same frontier row twice.
 */
export function distinctResults(messages: InboundMessage<CrawlPageResultBatchV1>[]): CrawlPageResultV1[] {
  const seen = new Set<string>();
  const results: CrawlPageResultV1[] = [];
  for (const message of messages) {
    for (const result of message.data.results) {
      const claim = `${result.frontier_id}:${result.attempt}`;
      if (seen.has(claim)) continue;
      seen.add(claim);
      results.push(result);
    }
  }
  return results;
}
