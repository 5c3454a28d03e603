import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import {
  crawlContentSpillStem,
  CrawlPageResultV1,
  CrawlPageTaskV1,
  crawlWorkMessageV1,
  CrawlWorkMessageV1,
  MessagingTopology,
} from '@trawl/contracts';
import { ByteBudget, Disposition, InboundMessage, MessageConsumer, MessagingConnection, SpilledBodies } from '@trawl/messaging';
import { Logger, withSpan } from '@trawl/observability';
import { PageFetchError, PageFetchErrorCode } from '../page-fetch/page-fetch.errors';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { WorkerMetrics } from '../worker.metrics';
import { CrawlPageAnswer, CrawlPageService } from './crawl-page.service';
import { ResultPublisher } from './result-publisher';
import { StoppedCrawls } from './stopped-crawls';
import { sharedAbortController } from '../shared-abort';
import { handleTogether, isSeveral, keepWorking, RETRY_DELAY_MS, tasksIn, WORKING_INTERVAL_MS } from '../task-groups';

export const CRAWL_PAGE_CONSUMER_SETTINGS = Symbol('CRAWL_PAGE_CONSUMER_SETTINGS');

export interface CrawlPageConsumerSettings {
  topology: MessagingTopology;
  /** Pages fetched at once (`WORKER_CONCURRENCY`, default 64), whether they came alone or several to a message. */
  concurrency: number;
  /**
   * On shutdown, how long pages in flight may still finish, in ms; fetches still running then are
   * aborted and their tasks handed back (nak), so another worker fetches them at once.
   */
  drainMs: number;
  /** On shutdown, the deadline given to the message consumer to settle every message, in ms. */
  stopDeadlineMs: number;
  /** Bytes of bodies the worker spills at once (`SPILL_BUDGET_BYTES`), shared with batch tasks. */
  spillBudget: ByteBudget;
  /** How long a result waits for company before its message is published, in ms (`RESULT_LINGER_MS`). */
  resultLingerMs?: number;
}

/** A host paused for longer is asked again after this long (its record says whether the pause still holds). */
const MAX_HAND_BACK_DELAY_MS = 60_000;

/**
 * Takes crawl page tasks from the work queue (the fetch-workers durable), fetches each page and
 * publishes its page result (gathered with others into one message). A task is acknowledged only
 * once its result is stored in the results stream; a task delivered twice (redelivery after a slow
 * ack, a reconciler re-dispatch) may yield two results, and the coordinator applies one of them.
 *
 * A message may carry several pages of one crawl (`crawlPageTasksV1`): they take as many of the
 * worker's slots and are fetched side by side, and the message is acknowledged once each page's
 * result is stored or, for a page that could not be fetched now (a busy host or browser, a
 * shutdown, a failure), once the page was published again alone, so that it waits with its own
 * `nak` delay as a page sent alone does, without holding the others' message.
 */
@Injectable()
export class CrawlPageConsumer {
  private consumer?: MessageConsumer<CrawlWorkMessageV1>;
  /** Aborts the work in flight when the worker stops; every call listens to it (see sharedAbortController). */
  private readonly shutdown = sharedAbortController();
  private stopping?: Promise<void>;
  private readonly results: ResultPublisher;
  /** HTML too large for a result message travels beside it (docs/decisions/platform.md, "Spilled bodies"). */
  private readonly contents: SpilledBodies;

  constructor(
    private readonly crawlPages: CrawlPageService,
    private readonly stoppedCrawls: StoppedCrawls,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(CRAWL_PAGE_CONSUMER_SETTINGS) private readonly settings: CrawlPageConsumerSettings,
    private readonly metrics: WorkerMetrics,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.contents = new SpilledBodies({ messaging, stream: settings.topology.streams.crawlBodies, budget: settings.spillBudget });
    this.results = new ResultPublisher({
      messaging,
      subject: settings.topology.subjects.crawlPageResults,
      lingerMs: settings.resultLingerMs,
      onHold: (error, results) => logger.warn({ err: error, results }, 'NATS refused page results; holding them until it is back'),
    });
  }

  /** Starts consuming (`WorkerRuntime` calls it). Safe to call twice. */
  async start(): Promise<void> {
    if (this.consumer || this.stopping) return;
    const { topology, concurrency } = this.settings;
    this.consumer = new MessageConsumer<CrawlWorkMessageV1>({
      js: this.messaging.js,
      stream: topology.streams.crawlWork,
      durable: topology.consumers.fetchWorkers,
      schema: crawlWorkMessageV1,
      logger: this.logger,
      concurrency,
      weigh: tasksIn,
      handler: (message) => (isSeveral(message) ? this.handleSeveral(message) : this.handle(message as InboundMessage<CrawlPageTaskV1>)),
    });
    await this.consumer.start();
    this.logger.info({ stream: topology.streams.crawlWork, concurrency }, 'consuming crawl page tasks');
  }

  /**
   * Stops taking tasks, lets pages in flight finish for `drainMs`, then aborts the rest (they are
   * handed back). Safe to call twice.
   */
  stop(): Promise<void> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  private async drain(): Promise<void> {
    const abortLate = setTimeout(
      () => this.shutdown.abort(new PageFetchError(PageFetchErrorCode.Aborted, 'The worker is shutting down')),
      this.settings.drainMs,
    );
    try {
      await this.consumer?.stop(this.settings.stopDeadlineMs);
    } finally {
      clearTimeout(abortLate);
      this.shutdown.abort(new PageFetchError(PageFetchErrorCode.Aborted, 'The worker stopped'));
    }
  }

  /** Stores a page's HTML too large for its result beside it, and says where. */
  private async spillContent(result: CrawlPageResultV1, html: string): Promise<CrawlPageResultV1['content_ref']> {
    const id = spillId();
    const ref = await this.contents.spill(crawlContentSpillStem(this.settings.topology, result, id), html);
    return { ...ref, id };
  }

  /** Several pages of one message, side by side (`handleTogether`). */
  handleSeveral(message: InboundMessage<{ v: 1; tasks: CrawlPageTaskV1[] }>): Promise<Disposition> {
    return handleTogether(message, (page) => this.handle(page), {
      messaging: this.messaging,
      subject: this.settings.topology.subjects.crawlPageTask,
      keyOf: (task) => task.frontier_id,
      handedBackAlone: this.metrics.pagesHandedBackAlone,
      logger: this.logger,
      fieldsOf: (tasks) => ({ crawl_id: tasks[0].crawl_id }),
    });
  }

  /** One task: fetch, publish the result, then ack; or hand the task back. */
  async handle(message: InboundMessage<CrawlPageTaskV1>): Promise<Disposition> {
    const task = message.data;
    const attributes = {
      'trawl.crawl_id': task.crawl_id,
      'trawl.frontier_id': task.frontier_id,
      'trawl.attempt': task.attempt,
      'messaging.delivery_count': message.deliveryCount,
    };
    this.metrics.inFlight.inc();
    try {
      // The result is published inside the span, so its traceparent continues this trace. Failures
      // the task recovers from are caught in fetchAndPublish, which decides what marks the span.
      return await withSpan('crawl.page.fetch', { parent: message.traceContext(), kind: SpanKind.CONSUMER, attributes }, (span) =>
        this.fetchAndPublish(message, span),
      );
    } finally {
      this.metrics.inFlight.dec();
    }
  }

  private async fetchAndPublish(message: InboundMessage<CrawlPageTaskV1>, span: Span): Promise<Disposition> {
    const task = message.data;
    const log = this.logger.child({ crawl_id: task.crawl_id, frontier_id: task.frontier_id, attempt: task.attempt });
    const heartbeat = setInterval(() => keepWorking(message, log), WORKING_INTERVAL_MS);
    let answer: CrawlPageAnswer;
    try {
      answer = this.stoppedCrawls.isStopped(task.crawl_id)
        ? { result: this.crawlPages.skipped(task) }
        : await this.crawlPages.fetchPage(task, this.shutdown.signal);
    } catch (error) {
      span.recordException(error as Error);
      if (error instanceof PageFetchError) return handBack(error, log);
      log.error({ err: error, url: task.url }, 'crawl page fetch failed unexpectedly; task handed back');
      span.setStatus({ code: SpanStatusCode.ERROR });
      return { kind: 'nak', delayMs: RETRY_DELAY_MS };
    } finally {
      clearInterval(heartbeat);
    }
    const { result } = answer;
    span.setAttributes({ 'trawl.outcome': result.outcome, 'http.response.status_code': result.status_code ?? 0 });
    try {
      if (answer.spill !== undefined) result.content_ref = await this.spillContent(result, answer.spill);
      await this.results.publish(result);
    } catch (error) {
      // The page is fetched but nobody knows: offer the task again rather than lose the result.
      log.warn({ err: error }, 'could not publish page result; task handed back');
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      return { kind: 'nak', delayMs: RETRY_DELAY_MS };
    }
    this.metrics.pages.inc({ outcome: result.outcome });
    log.debug({ url: task.url, outcome: result.outcome, links: result.links.length }, 'page result published');
    return { kind: 'ack' };
  }
}

/** A spill of its own per answer: a task delivered twice answers twice, and neither may read the other's chunks. */
function spillId(): string {
  return randomBytes(9).toString('base64url');
}

/** What becomes of a task whose fetch said nothing about the page. */
function handBack(error: PageFetchError, log: Logger): Disposition {
  switch (error.code) {
    case PageFetchErrorCode.Aborted:
      // Shutting down: another worker can take it now.
      return { kind: 'nak', delayMs: 0 };
    case PageFetchErrorCode.Busy:
      // Rendering tiers share the worker's few browsers, and a host its per-host limits: a crawl
      // waits for them, it does not fail.
      log.debug({ err: error }, 'browsers or the host busy; task handed back');
      return { kind: 'nak', delayMs: Math.min(MAX_HAND_BACK_DELAY_MS, Math.max(error.retryAfterMs ?? RETRY_DELAY_MS, 100)) };
  }
}
