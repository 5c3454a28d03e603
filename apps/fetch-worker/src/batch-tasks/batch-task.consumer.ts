import { Inject, Injectable } from '@nestjs/common';
import { context, SpanKind } from '@opentelemetry/api';
import { batchBodyStem, BatchTaskResultV1, BatchTaskV1, batchWorkMessageV1, BatchWorkMessageV1, MessagingTopology } from '@trawl/contracts';
import { ByteBudget, Disposition, InboundMessage, MessageConsumer, MessagingConnection, SpilledBodies } from '@trawl/messaging';
import { Logger, tracesExported, withSpan } from '@trawl/observability';
import { FetchRequestService } from '../fetch-requests/fetch-request.service';
import { ResultPublisher } from '../crawl-pages/result-publisher';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { WorkerMetrics } from '../worker.metrics';
import { fetchRequestOf, isTransient, resultOf, skippedResult } from './batch-task-answer';
import { StoppedRuns } from './stopped-runs';
import { sharedAbortController } from '../shared-abort';
import { handleTogether, isSeveral, keepWorking, RETRY_DELAY_MS, tasksIn, WORKING_INTERVAL_MS } from '../task-groups';

export const BATCH_TASK_CONSUMER_SETTINGS = Symbol('BATCH_TASK_CONSUMER_SETTINGS');

export interface BatchTaskConsumerSettings {
  topology: MessagingTopology;
  /** Batch tasks run at once by this worker (`BATCH_CONCURRENCY`); 0 takes none. */
  concurrency: number;
  /** On shutdown, how long tasks in flight may still finish, in ms, before they are cancelled and handed back. */
  drainMs: number;
  /** On shutdown, the deadline for every message to be settled, in ms. */
  stopDeadlineMs: number;
  /** Bytes of bodies the worker spills at once (`SPILL_BUDGET_BYTES`), shared with crawl pages. */
  spillBudget: ByteBudget;
  /** How long a result waits for company before its message is published, in ms (`BATCH_RESULT_LINGER_MS`). */
  resultLingerMs?: number;
}

/**
 * Largest body sent inside a result message, in bytes: base64 makes it 4/3 larger, and the JSON of
 * a result batch must stay under NATS's max_payload (1 MiB by default) with its headers. A larger
 * one is spilled to the batch bodies stream.
 */
export const MAX_INLINE_BODY_BYTES = 512 * 1024;

// The caller's signal of every batch task (no caller waits on one): shared, so listened to by each.
const NEVER = sharedAbortController().signal;

/**
 * Takes batch tasks from the work queue, runs each through the Fetch API's own
 * `FetchRequestService` (same engines, options, tiers and errors) and publishes its result,
 * gathered with others into one message. A task is acked only once its result is stored; a task
 * whose claim has already expired is skipped, since the scheduler has dispatched it again.
 *
 * A message may carry several tasks of one run (`batchTasksV1`): they take as many of the worker's
 * slots and run side by side; a task that cannot run now (browsers busy, a shutdown, a failed
 * publish) is handed back alone (`handleTogether`).
 */
@Injectable()
export class BatchTaskConsumer {
  private consumer?: MessageConsumer<BatchWorkMessageV1>;
  /** Aborts the work in flight when the worker stops; every call listens to it (see sharedAbortController). */
  private readonly shutdown = sharedAbortController();
  private stopping?: Promise<void>;
  private readonly results: ResultPublisher<BatchTaskResultV1>;
  private readonly bodies: SpilledBodies;

  constructor(
    private readonly fetchRequests: FetchRequestService,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(BATCH_TASK_CONSUMER_SETTINGS) private readonly settings: BatchTaskConsumerSettings,
    private readonly metrics: WorkerMetrics,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    private readonly stoppedRuns: StoppedRuns,
  ) {
    this.bodies = new SpilledBodies({ messaging, stream: settings.topology.streams.batchBodies, budget: settings.spillBudget });
    this.results = new ResultPublisher<BatchTaskResultV1>({
      messaging,
      subject: settings.topology.subjects.batchResults,
      estimate: (result) => 512 + (result.body_base64?.length ?? 0) + (result.error?.detail.length ?? 0) * 6,
      lingerMs: settings.resultLingerMs,
      onHold: (error, results) => logger.warn({ err: error, results }, 'NATS refused batch task results; holding them until it is back'),
    });
  }

  /** Starts consuming (nothing when `concurrency` is 0; `WorkerRuntime` calls it). Safe to call twice. */
  async start(): Promise<void> {
    if (this.consumer || this.stopping || this.settings.concurrency === 0) return;
    const { topology, concurrency } = this.settings;
    this.consumer = new MessageConsumer<BatchWorkMessageV1>({
      js: this.messaging.js,
      stream: topology.streams.batchWork,
      durable: topology.consumers.batchWorkers,
      schema: batchWorkMessageV1,
      logger: this.logger,
      concurrency,
      weigh: tasksIn,
      handler: (message) => (isSeveral(message) ? this.handleSeveral(message) : this.handle(message as InboundMessage<BatchTaskV1>)),
    });
    await this.consumer.start();
    this.logger.info({ stream: topology.streams.batchWork, concurrency }, 'consuming batch tasks');
  }

  /** Stops taking tasks, lets those in flight finish for `drainMs`, then cancels the rest (handed back). Safe to call twice. */
  stop(): Promise<void> {
    this.stopping ??= this.drain();
    return this.stopping;
  }

  private async drain(): Promise<void> {
    const cancelLate = setTimeout(() => this.shutdown.abort(new Error('worker shutting down')), this.settings.drainMs);
    try {
      await this.consumer?.stop(this.settings.stopDeadlineMs);
    } finally {
      clearTimeout(cancelLate);
      this.shutdown.abort(new Error('worker stopped'));
      this.results.flush();
    }
  }

  /** Several tasks of one message, side by side (`handleTogether`). */
  handleSeveral(message: InboundMessage<{ v: 1; tasks: BatchTaskV1[] }>): Promise<Disposition> {
    return handleTogether(message, (task) => this.handle(task), {
      messaging: this.messaging,
      subject: this.settings.topology.subjects.batchTask,
      keyOf: (task) => task.seq,
      handedBackAlone: this.metrics.batchTasksHandedBackAlone,
      logger: this.logger,
      fieldsOf: (tasks) => ({ run_id: tasks[0].run_id }),
    });
  }

  /** One task: fetch, publish the result, then ack; or hand the task back. */
  async handle(message: InboundMessage<BatchTaskV1>): Promise<Disposition> {
    const task = message.data;
    if (Date.now() >= task.lease_until) {
      // The scheduler's reconciler takes (or took) the task back and sends it again with a new attempt.
      this.metrics.batchTasks.inc({ outcome: 'stale' });
      return { kind: 'ack' };
    }
    if (this.stoppedRuns.isStopped(task.run_id)) return this.skip(task);
    const parent = message.traceContext();
    this.metrics.batchInFlight.inc();
    try {
      // A span per task costs CPU that only pays off when spans are exported; without an exporter the
      // task runs in its message's context, so logs and the result still carry the run's trace id.
      if (!tracesExported()) return await context.with(parent, () => this.fetchAndPublish(message));
      return await withSpan(
        'batch.task.fetch',
        {
          parent,
          kind: SpanKind.CONSUMER,
          attributes: { 'trawl.run_id': task.run_id, 'trawl.seq': task.seq, 'trawl.attempt': task.attempt },
        },
        () => this.fetchAndPublish(message),
      );
    } finally {
      this.metrics.batchInFlight.dec();
    }
  }

  /**
   * A task of a run that ended: not fetched, not billed; a `skipped` result tells the scheduler to
   * take the claim back at once instead of waiting for its lease (the row is not counted).
   */
  private async skip(task: BatchTaskV1): Promise<Disposition> {
    try {
      await this.results.publish(skippedResult(task));
    } catch (error) {
      // Nothing was fetched: without the result the lease runs out and the reconciler takes it back.
      this.logger.debug({ err: error, run_id: task.run_id, seq: task.seq }, 'skipped batch task not reported; its lease will');
    }
    this.metrics.batchTasks.inc({ outcome: 'skipped' });
    return { kind: 'ack' };
  }

  private async fetchAndPublish(message: InboundMessage<BatchTaskV1>): Promise<Disposition> {
    const task = message.data;
    // Fields in each call rather than a child logger per task: the calls are rare, the tasks are not.
    const fields = { run_id: task.run_id, seq: task.seq, attempt: task.attempt };
    const heartbeat = setInterval(() => keepWorking(message, this.logger), WORKING_INTERVAL_MS);
    let answer;
    try {
      // Never throws: every failure is an answer with an error code, as the Fetch API gives it.
      answer = await this.fetchRequests.handle(fetchRequestOf(task, Date.now()), NEVER, this.shutdown.signal, { targetHeaders: false });
    } finally {
      clearInterval(heartbeat);
    }
    if (isTransient(answer, this.shutdown.signal.aborted)) {
      this.metrics.batchTasks.inc({ outcome: 'handed_back' });
      return { kind: 'nak', delayMs: this.shutdown.signal.aborted ? 0 : RETRY_DELAY_MS };
    }
    const result: BatchTaskResultV1 = resultOf(task, answer);
    try {
      if (answer.body.length > MAX_INLINE_BODY_BYTES) {
        result.body_ref = await this.bodies.spill(batchBodyStem(this.settings.topology, task.run_id, task.seq, task.attempt), answer.body);
      } else if (answer.body.length > 0) {
        result.body_base64 = answer.body.toString('base64');
      }
      await this.results.publish(result);
    } catch (error) {
      // Fetched, but nobody knows: offer the task again rather than lose the result.
      this.logger.warn({ ...fields, err: error }, 'could not publish batch task result; task handed back');
      return { kind: 'nak', delayMs: RETRY_DELAY_MS };
    }
    this.metrics.batchTasks.inc({ outcome: result.error ? 'failed' : 'succeeded' });
    this.logger.debug({ ...fields, code: result.error?.code ?? 'ok', tier: result.billed_tier }, 'batch task result published');
    return { kind: 'ack' };
  }
}
