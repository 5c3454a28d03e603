import { Inject, Injectable } from '@nestjs/common';
import { type BatchRunStoppedV1, isFinishedRunStatus } from '@trawl/contracts';
import type { MessagingConnection } from '@trawl/messaging';
import type { Logger } from '@trawl/observability';
import { Database } from '@trawl/persistence';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from '@trawl/service-kit';
import { RunExecutionRepository } from './run-execution.repository';
import { RunResultsService } from './run-results.service';
import { RunsMetrics } from './runs.metrics';
import { RUNS_SETTINGS, RunsSettings } from './runs.settings';
import { failedResult } from './task-result';
import { UnconfirmedResults } from './unconfirmed-results';

/** Runs looked at per pass. */
const RUNS_PER_PASS = 100;

/**
 * Finds what Postgres says is in flight but nobody answered: a claim whose lease ran out (its
 * message was lost, or its worker died) goes back to the queue, to be dispatched again as a new
 * attempt; after `maxAttempts` it fails with `ERR0001` (free). Claims of a run that no longer
 * dispatches (stopped, ended) go back to the queue and stay there. Also completes runs whose last
 * result came before their job was closed, and repeats the run-ended notice (core NATS, lost by a
 * worker that was not listening at the stop) while an ended run still has claims out.
 */
@Injectable()
export class RunReconcilerService {
  constructor(
    private readonly db: Database,
    private readonly runs: RunExecutionRepository,
    private readonly results: RunResultsService,
    private readonly metrics: RunsMetrics,
    @Inject(RUNS_SETTINGS) private readonly settings: RunsSettings,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
    @Inject(SERVICE_MESSAGING) private readonly messaging: MessagingConnection,
    private readonly unconfirmed: UnconfirmedResults,
  ) {}

  /** One pass; answers the number of claims and runs it changed. */
  async reconcileOnce(): Promise<number> {
    try {
      return await this.pass();
    } catch (error) {
      this.unconfirmed.noticed(error);
      throw error;
    }
  }

  private async pass(): Promise<number> {
    // First: results a database crash lost since they were acked go back to the queue now, not at their lease's end.
    let changed = await this.unconfirmed.recheck();
    for (const runId of await this.runs.runsWithExpiredLeases(this.db, RUNS_PER_PASS)) changed += await this.reclaim(runId);
    for (const runId of await this.runs.finishableRuns(this.db, RUNS_PER_PASS)) {
      if (await this.results.completeRunIfDone(runId)) changed++;
    }
    for (const runId of await this.runs.endedRunsWithClaimsOut(this.db, RUNS_PER_PASS)) this.noticeRunEnded(runId);
    return changed;
  }

  /** Best effort: a worker that misses it fetches the task (recorded as before a stop), nothing worse. */
  private noticeRunEnded(runId: string): void {
    const notice: BatchRunStoppedV1 = { run_id: runId };
    try {
      this.messaging.nc.publish(this.settings.topology.subjects.batchRunStopped, JSON.stringify(notice));
    } catch (error) {
      this.logger.warn({ err: error, run_id: runId }, 'batch run stop notice not published; the next pass repeats it');
    }
  }

  private reclaim(runId: string): Promise<number> {
    return this.db.transaction(async (sql) => {
      const run = (await this.runs.lockRuns(sql, [runId])).get(runId);
      if (!run) return 0;
      const expired = await this.runs.expiredClaims(sql, runId);
      if (expired.length === 0) return 0;
      const dispatching = !isFinishedRunStatus(run.status);
      const abandoned = dispatching ? expired.filter((c) => c.attempt >= this.settings.maxAttempts) : [];
      const requeued = expired.filter((c) => !abandoned.includes(c));
      await this.runs.requeue(
        sql,
        runId,
        requeued.map((c) => c.seq),
      );
      await this.results.applyIn(
        sql,
        abandoned.map((c) =>
          failedResult(
            { runId, seq: c.seq, attempt: c.attempt },
            'ERR0001',
            500,
            `The task was not answered in ${this.settings.maxAttempts} attempts; rerun the failed tasks.`,
          ),
        ),
      );
      if (dispatching) {
        this.metrics.expired.inc({ outcome: 'requeued' }, requeued.length);
        this.metrics.expired.inc({ outcome: 'failed' }, abandoned.length);
        this.logger.info({ run_id: runId, requeued: requeued.length, failed: abandoned.length }, 'expired batch task claims reclaimed');
      }
      return expired.length;
    });
  }
}
