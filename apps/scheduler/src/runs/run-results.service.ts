import { Inject, Injectable } from '@nestjs/common';
import { Charge, recordCharges } from '@trawl/billing';
import { isFinishedRunStatus, type RunStatus, WEBHOOK_CHANGED_PAGES_LIMIT } from '@trawl/contracts';
import type { Logger } from '@trawl/observability';
import { Database, Sql } from '@trawl/persistence';
import { enqueueWebhookEvent } from '@trawl/webhooks';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { runChanges } from './run-changes';
import { RunExecutionRepository, RunState } from './run-execution.repository';
import { RunsMetrics } from './runs.metrics';
import { RUNS_SETTINGS, RunsSettings } from './runs.settings';
import type { TaskClaim, TaskResult } from './task-result';

/** Statuses of a run that may still dispatch tasks. */
const DISPATCHING: ReadonlySet<RunStatus> = new Set<RunStatus>(['queued', 'running']);

/** What one intake transaction did. */
export interface IntakeOutcome {
  applied: number;
  /** Late or repeated results (the claim was answered, requeued or is another attempt now). */
  ignored: number;
  /** Runs that this transaction completed. */
  completed: string[];
  /** Tenants of the tasks applied (one entry per task) and what they were charged: counted once committed. */
  usage: { tenantIds: string[]; charges: Charge[] };
  /** The tenant slots the applied results freed, by run that may dispatch more (queued or running, not completed by this transaction; locked by it). */
  freed: Map<string, { tenantId: string; slots: number }>;
  /** Tenants whose dispatch lock the transaction took with its runs (`tryDispatchLocks`): a refill need not try them again. */
  dispatchLocked: ReadonlySet<string>;
}

/** How `applyIn` takes its runs. */
export interface ApplyOptions {
  /**
   * Also try the dispatch lock of the tenants of runs that may dispatch, with the runs' lock: for an
   * intake that then fills the slots its results free (`RunDispatcherService.refillIn`).
   */
  tryDispatchLocks?: boolean;
}

/** Why a run cannot go on (`failure_reason`), with the detail shown to the caller. */
export interface RunFailure {
  reason: string;
  detail: string;
}

/**
 * Task results into Postgres, and the ends of runs. One transaction applies a batch of results:
 * each only onto its own dispatched claim (same attempt), the run counters raised by what was
 * applied (so `completed = successful + failed` at every instant), one ledger row per billed task
 * (ref `batch:<run_id>:<seq>`), and the run completed — with its `run.completed` outbox event —
 * when its last task is in. A stopped run keeps counting results that arrive but stays stopped.
 */
@Injectable()
export class RunResultsService {
  constructor(
    private readonly db: Database,
    private readonly runs: RunExecutionRepository,
    private readonly metrics: RunsMetrics,
    @Inject(RUNS_SETTINGS) private readonly settings: RunsSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * Applies results, and puts back the `skipped` claims (tasks a worker did not run because their
   * run had ended: not counted, not billed), in one transaction.
   *
   * Its commit does not wait for the disk (see `Database.transaction`'s `durable`): the run lock it
   * holds until then is what the dispatcher of the same run waits for. Results that a Postgres
   * crash loses are claims still dispatched afterwards: their lease runs out and they are fetched
   * again, billed once. A transaction that ends a run commits durably (`completeIfDone`).
   */
  async apply(results: TaskResult[], skipped: TaskClaim[] = []): Promise<IntakeOutcome> {
    const outcome = await this.db.transaction((sql) => this.applyIntakeIn(sql, results, skipped), { durable: false });
    this.countUsage(outcome);
    return outcome;
  }

  /** As `apply`, in the caller's transaction; call `countUsage` once it commits. */
  async applyIntakeIn(sql: Sql, results: TaskResult[], skipped: TaskClaim[], options: ApplyOptions = {}): Promise<IntakeOutcome> {
    const released = await this.runs.release(sql, skipped);
    if (released > 0) this.metrics.results.inc({ outcome: 'released', state: 'skipped' }, released);
    return this.applyIn(sql, results, options);
  }

  /** Counts the committed intake's requests and charges in the usage metrics. */
  countUsage(outcome: IntakeOutcome): void {
    for (const tenantId of outcome.usage.tenantIds) this.metrics.usage.requested(tenantId, 'batch');
    this.metrics.usage.billed(outcome.usage.charges);
  }

  /** As `apply`, in the caller's transaction (the dispatcher fails tasks it refuses this way). */
  async applyIn(sql: Sql, results: TaskResult[], { tryDispatchLocks = false }: ApplyOptions = {}): Promise<IntakeOutcome> {
    if (results.length === 0) {
      return { applied: 0, ignored: 0, completed: [], usage: { tenantIds: [], charges: [] }, freed: new Map(), dispatchLocked: new Set() };
    }
    const runIds = [...new Set(results.map((r) => r.runId))];
    const { runs: locked, dispatchLocked } = tryDispatchLocks
      ? await this.runs.lockRunsForIntake(sql, runIds)
      : { runs: await this.runs.lockRuns(sql, runIds), dispatchLocked: new Set<string>() };
    const applied = await this.runs.applyResults(sql, results, this.settings.creditPriceUsd);
    // Each run's counters once this statement's results are in (every applied task of a run carries the same).
    const counted = new Map<string, { successful: number; failed: number }>();
    const charges: Charge[] = [];
    const tenantIds: string[] = [];
    const freed = new Map<string, { tenantId: string; slots: number }>();
    for (const task of applied) {
      counted.set(task.runId, task.run);
      // A failed task is billed when the Fetch API bills its answer (a 404, an unknown domain).
      const run = locked.get(task.runId);
      if (run) tenantIds.push(run.tenantId);
      if (run && DISPATCHING.has(run.status)) {
        const slots = freed.get(task.runId);
        if (slots) slots.slots++;
        else freed.set(task.runId, { tenantId: run.tenantId, slots: 1 });
      }
      if (run && task.credits > 0 && task.tier) {
        charges.push({
          tenantId: run.tenantId,
          credits: task.credits,
          product: 'batch',
          tier: task.tier,
          ref: `batch:${task.runId}:${task.seq}`,
          costUsd: task.credits * this.settings.creditPriceUsd,
        });
      }
    }
    await recordCharges(sql, charges);

    const completed: string[] = [];
    for (const [runId, counters] of counted) {
      const run = locked.get(runId);
      if (!run) continue;
      if (await this.completeIfDone(sql, { ...run, ...counters })) completed.push(run.id);
    }
    for (const runId of completed) freed.delete(runId);
    const appliedKeys = new Set(applied.map((a) => `${a.runId}:${a.seq}`));
    for (const result of results) {
      const outcome = appliedKeys.has(`${result.runId}:${result.seq}`) ? 'applied' : 'ignored';
      this.metrics.results.inc({ outcome, state: result.state });
    }
    return {
      applied: applied.length,
      ignored: results.length - applied.length,
      completed,
      usage: { tenantIds, charges },
      freed,
      dispatchLocked,
    };
  }

  /**
   * Completes a locked run whose every task has a result, if it is still in flight and its job
   * takes no more tasks (an open job's run waits for its last batch). Answers whether it did.
   */
  async completeIfDone(sql: Sql, run: RunState): Promise<boolean> {
    if (isFinishedRunStatus(run.status)) return false;
    if (!run.jobComplete || run.successful + run.failed < run.total) return false;
    const ended = await this.runs.endRun(sql, run.id, 'completed');
    if (!ended) return false;
    // A run's end is seen outside (its webhook, the API): never lost once committed.
    await this.runs.commitDurably(sql);
    await this.announce(sql, ended, 'run.completed');
    this.metrics.transitions.inc({ to: 'completed' });
    this.logger.info({ run_id: run.id, job_id: run.jobId, total: run.total, failed: ended.failed }, 'batch run completed');
    return true;
  }

  /** Fails a run that cannot go on, with its `run.failed` event; false when it had ended already. */
  async failRun(sql: Sql, runId: string, failure: RunFailure): Promise<boolean> {
    const locked = await this.runs.lockRuns(sql, [runId]);
    if (!locked.has(runId)) return false;
    const ended = await this.runs.endRun(sql, runId, 'failed', failure);
    if (!ended) return false;
    await this.runs.commitDurably(sql);
    await this.announce(sql, ended, 'run.failed', failure);
    this.metrics.transitions.inc({ to: 'failed' });
    this.logger.warn({ run_id: runId, job_id: ended.jobId, reason: failure.reason }, 'batch run failed');
    return true;
  }

  /** Locks a run and completes it if it is done (the reconciler's sweep). */
  async completeRunIfDone(runId: string): Promise<boolean> {
    return this.db.transaction(async (sql) => {
      const run = (await this.runs.lockRuns(sql, [runId])).get(runId);
      return run ? this.completeIfDone(sql, run) : false;
    });
  }

  /**
   * The run's end as an outbox event, when its job has a webhook (spec-batch-api §6), with what
   * its tasks with `change_tracking` found: a scheduled job that tracks changes is a monitor, and
   * its receiver learns which pages changed without reading every result.
   */
  private async announce(sql: Sql, run: RunState, type: 'run.completed' | 'run.failed', failure?: RunFailure): Promise<void> {
    if (!run.webhook) return;
    const tracked = await this.runs.changes(sql, run.id, run.jobId, WEBHOOK_CHANGED_PAGES_LIMIT + 1);
    const changes = runChanges(tracked.counts, tracked.pages);
    await enqueueWebhookEvent(sql, this.settings.topology, {
      event_type: type,
      occurred_at: new Date().toISOString(),
      tenant_id: run.tenantId,
      job_id: run.jobId,
      run_id: run.id,
      run_sequence: run.runSequence,
      stats: {
        total: run.total,
        completed: run.successful + run.failed,
        successful: run.successful,
        failed: run.failed,
        spend: { credits: run.credits, cost: run.cost },
      },
      ...(changes && { changes }),
      ...(failure && { failure_reason: failure.reason, failure_detail: failure.detail }),
      webhook: run.webhook,
    });
  }
}
