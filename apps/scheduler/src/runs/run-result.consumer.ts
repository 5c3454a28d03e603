import { Inject, Injectable } from '@nestjs/common';
import { batchBodyStem, BatchTaskResultBatchV1, batchTaskResultBatchV1, BatchTaskResultV1 } from '@trawl/contracts';
import { BatchConsumer, Disposition, groupsWithinBytes, InboundMessage, MessagingConnection, SpilledBodies } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { retryWhileDatabaseDown } from '@trawl/persistence';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { RunIntakeService } from './run-intake.service';
import { RUNS_SETTINGS, RunsSettings } from './runs.settings';
import { TaskResult } from './task-result';
import { UnconfirmedResults } from './unconfirmed-results';

/** Longest a batch of results is held and applied again while Postgres is unreachable, in ms. */
const DATABASE_DOWN_HOLD_MS = 40_000;
/**
 * Most bytes of spilled bodies held for one transaction (32 MiB): a batch whose bodies weigh more
 * is applied in several, each body read one chunk at a time (a larger body goes alone).
 */
export const SPILLED_BYTES_PER_APPLY = 32 * 1024 * 1024;

/**
 * Takes task results from JetStream in batches and has them applied in one transaction; the
 * messages are acked only after it commits (a failed batch is nak'ed and comes back). Bodies that
 * workers spilled to the bodies stream are read before the transaction and purged after it.
 */
@Injectable()
export class RunResultConsumer {
  private consumer?: BatchConsumer<BatchTaskResultBatchV1>;
  /** Called after a batch that applied results committed, with the slots it freed and did not fill again: tenants have room. */
  onApplied?: (applied: number) => void;
  /** Bodies workers spilled beside their results (docs/decisions/platform.md, "Spilled bodies"). */
  private readonly bodies: SpilledBodies;

  constructor(
    private readonly intake: RunIntakeService,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    @Inject(RUNS_SETTINGS) private readonly settings: RunsSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    private readonly unconfirmed: UnconfirmedResults,
  ) {
    this.bodies = new SpilledBodies({ messaging, stream: settings.topology.streams.batchBodies });
  }

  /** Starts consuming. Safe to call twice. */
  async start(): Promise<void> {
    if (this.consumer) return;
    const { topology } = this.settings;
    this.consumer = new BatchConsumer<BatchTaskResultBatchV1>({
      js: this.messaging.js,
      stream: topology.streams.batchResults,
      durable: topology.consumers.batchSchedulers,
      schema: batchTaskResultBatchV1,
      logger: this.logger,
      maxBatch: this.settings.resultBatch,
      // Each result holds a tenant slot until it is applied, so the wait is part of every task's
      // cycle; but one transaction per worker message (often 1 result) cost more CPU per task in
      // Postgres and here than the wait costs in latency (bench/README.md, Batch).
      maxWaitMs: this.settings.resultWaitMs,
      handler: (messages) => this.handle(messages),
    });
    await this.consumer.start();
  }

  /** Stops taking results; the batch being applied may finish until `deadlineMs`, then what is left is nak'ed. Safe to call twice. */
  async stop(deadlineMs: number): Promise<void> {
    await this.consumer?.stop(deadlineMs);
    this.consumer = undefined;
  }

  /**
   * One batch: read spilled bodies, apply everything in one transaction (several when the bodies
   * weigh over `SPILLED_BYTES_PER_APPLY`), then purge the bodies and ack. A group applied before a
   * later one failed is applied again on redelivery, which changes nothing.
   */
  async handle(messages: InboundMessage<BatchTaskResultBatchV1>[]): Promise<Disposition[]> {
    const distinct = distinctResults(messages);
    const skipped = distinct.filter((r) => r.skipped).map((r) => ({ runId: r.run_id, seq: r.seq, attempt: r.attempt }));
    const groups = groupsWithinBytes(
      distinct.filter((r) => !r.skipped),
      (r) => r.body_ref?.bytes ?? 0,
      SPILLED_BYTES_PER_APPLY,
    );
    if (groups.length === 0) groups.push([]);
    for (const [i, group] of groups.entries()) await this.applyGroup(messages, group, i === 0 ? skipped : []);
    return messages.map(() => ({ kind: 'ack' }));
  }

  private async applyGroup(
    messages: InboundMessage<BatchTaskResultBatchV1>[],
    group: BatchTaskResultV1[],
    skipped: { runId: string; seq: number; attempt: number }[],
  ): Promise<void> {
    // One at a time: only one spilled body is being read at once.
    const results: TaskResult[] = [];
    for (const result of group) results.push(await this.taskResult(result));
    // Held through a Postgres restart (messages kept from redelivery), then applied: a result
    // handed back instead would wait out a nak delay per delivery.
    let warned = false;
    const outcome = await retryWhileDatabaseDown(() => this.intake.take(results, skipped), {
      holdMs: DATABASE_DOWN_HOLD_MS,
      onRetry: (error) => {
        this.unconfirmed.noticed(error);
        if (!warned)
          this.logger.warn({ err: error, batch: messages.length }, 'database unreachable; holding task results until it is back');
        warned = true;
        for (const message of messages) message.working();
      },
    }).catch((error: unknown) => {
      this.unconfirmed.noticed(error);
      throw error;
    });
    this.unconfirmed.applied([...results.map((r) => ({ runId: r.runId, seq: r.seq, attempt: r.attempt })), ...skipped]);
    // Slots the intake claimed again itself are not free: only the others call for a dispatch round,
    // and room it saw and left (a round skipped the tenant while the intake held its lock).
    const freed = outcome.applied - outcome.refilled;
    if (freed > 0 || outcome.roomLeft) this.onApplied?.(Math.max(freed, 1));
    if (outcome.ignored > 0) this.logger.debug({ ignored: outcome.ignored }, 'late or repeated batch task results ignored');
    await Promise.all(group.filter((r) => r.body_ref).map((r) => this.purgeBody(r)));
  }

  private async taskResult(result: BatchTaskResultV1): Promise<TaskResult> {
    let body: Buffer | null = result.body_base64 !== undefined ? Buffer.from(result.body_base64, 'base64') : null;
    if (result.body_ref) {
      body = await this.readBody(result);
      if (body === null) {
        // The chunks outlived their stream's max age or were purged by an earlier apply of this
        // result; applying it now can only be late, but say why if it is not.
        return {
          ...common(result),
          state: 'failed',
          outputFormat: null,
          body: null,
          tier: null,
          credits: 0,
          errorCode: 'ERR0001',
          errorDetail: 'The answer body was lost before it was stored; rerun the failed tasks.',
          cache: null,
          changeStatus: null,
        };
      }
    }
    const succeeded = result.error === undefined;
    return {
      ...common(result),
      state: succeeded ? 'succeeded' : 'failed',
      outputFormat: result.output_format ?? null,
      body,
      // Billed as the Fetch API bills its answer: failures such as a 404 included (the worker decides).
      tier: result.billed_tier,
      credits: result.billed_tier === null ? 0 : result.credits,
      errorCode: result.error?.code ?? null,
      errorDetail: result.error?.detail ?? null,
      cache: result.cache ?? null,
      changeStatus: result.change_status ?? null,
    };
  }

  private readBody(result: BatchTaskResultV1): Promise<Buffer | null> {
    return this.bodies.read(batchBodyStem(this.settings.topology, result.run_id, result.seq, result.attempt), result.body_ref!);
  }

  private async purgeBody(result: BatchTaskResultV1): Promise<void> {
    await this.bodies
      .purge(batchBodyStem(this.settings.topology, result.run_id, result.seq, result.attempt))
      .catch((error: unknown) =>
        this.logger.warn({ err: error, run_id: result.run_id, seq: result.seq }, 'could not purge a spilled body; its max age will'),
      );
  }
}

function common(result: BatchTaskResultV1): Pick<TaskResult, 'runId' | 'seq' | 'attempt' | 'statusCode' | 'contentType'> {
  return {
    runId: result.run_id,
    seq: result.seq,
    attempt: result.attempt,
    statusCode: result.status_code,
    contentType: result.content_type,
  };
}

/** Each claim (run, seq, attempt) once: one statement must not touch the same row twice. */
export function distinctResults(messages: InboundMessage<BatchTaskResultBatchV1>[]): BatchTaskResultV1[] {
  const seen = new Set<string>();
  const results: BatchTaskResultV1[] = [];
  for (const message of messages) {
    for (const result of message.data.results) {
      const claim = `${result.run_id}:${result.seq}:${result.attempt}`;
      if (seen.has(claim)) continue;
      seen.add(claim);
      results.push(result);
    }
  }
  return results;
}
