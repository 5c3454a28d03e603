import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { currentTraceParent } from '@trawl/observability';
import type { RunKind } from '@trawl/contracts';
import { ActiveJobsRepository, Database, RunsRepository, Sql } from '@trawl/persistence';
import { BatchError, BatchErrorCode } from './batch.errors';
import { isUuid } from '@trawl/http';
import { runListCursor } from './job-cursors';
import { JobRunsRepository, RunTransition } from './job-runs.repository';
import { RunRecord } from './jobs.repository';
import { jobNotFound, JobsService, quotaExceeded } from './jobs.service';
import { RunStopNotices } from './run-stop-notices';

export interface RunList {
  runs: RunRecord[];
  /** Absent on the last page. */
  nextCursor?: string;
}

/**
 * Runs of a job: reading them, steering the run in flight (stop, pause, resume) and starting new
 * ones (rerun, retry-failed), which count against the active-job limit like a new job.
 */
@Injectable()
export class JobRunsService {
  constructor(
    private readonly db: Database,
    private readonly jobs: JobsService,
    private readonly jobRuns: JobRunsRepository,
    private readonly runs: RunsRepository,
    private readonly activeJobs: ActiveJobsRepository,
    private readonly stopNotices: RunStopNotices,
  ) {}

  /** @throws BatchError `job_not_found`, `invalid_jobs_cursor`. */
  async list(tenantId: string, jobId: string, cursorToken: string | undefined, limit: number): Promise<RunList> {
    await this.jobs.get(tenantId, jobId);
    const cursor = cursorToken === undefined ? undefined : runListCursor.decode(cursorToken);
    if (cursorToken !== undefined && (!cursor || cursor.jobId !== jobId)) throw invalidCursor();
    const rows = await this.jobRuns.list(tenantId, jobId, cursor?.runSequence, limit + 1);
    const runs = rows.slice(0, limit);
    const last = runs.at(-1);
    return { runs, ...(rows.length > limit && last && { nextCursor: runListCursor.encode({ jobId, runSequence: last.runSequence }) }) };
  }

  /** @throws BatchError `job_not_found`, `run_not_found`. */
  async get(tenantId: string, jobId: string, runId: string): Promise<RunRecord> {
    await this.jobs.get(tenantId, jobId);
    const run = isUuid(runId) ? await this.jobRuns.find(tenantId, jobId, runId) : undefined;
    if (!run) throw new BatchError(BatchErrorCode.RunNotFound, 'This job has no run with this id; list them with GET /v1/jobs/{id}/runs.');
    return run;
  }

  /**
   * The job's run `runId`, or without one its latest run (none before a scheduled job's first firing).
   *
   * @throws BatchError `job_not_found`, `run_not_found`.
   */
  async runOrLatest(tenantId: string, jobId: string, runId: string | undefined): Promise<RunRecord | undefined> {
    if (runId !== undefined) return this.get(tenantId, jobId, runId);
    return (await this.jobs.get(tenantId, jobId)).latestRun ?? undefined;
  }

  /**
   * Stop (terminal; results of tasks in flight are still recorded), pause, or resume (back to
   * `running` if the run had started, else `queued`) the job's run in flight. Pausing a paused run
   * or resuming a run that is not paused changes nothing and answers the run as it is.
   *
   * @throws BatchError `job_not_found`; `no_run_in_flight` when no run is queued, running or paused.
   */
  async transition(tenantId: string, jobId: string, transition: RunTransition): Promise<RunRecord> {
    await this.jobs.get(tenantId, jobId);
    const changed = await this.jobRuns.transition(tenantId, jobId, transition);
    // After the commit: tasks already queued for workers are skipped, not fetched (never billed).
    if (changed && transition === 'stop') this.stopNotices.stopped(changed.id);
    if (changed) return changed;
    const inFlight = await this.runs.runInFlight(this.db, tenantId, jobId);
    if (inFlight && transition !== 'stop') return this.get(tenantId, jobId, inFlight.runId);
    throw new BatchError(
      BatchErrorCode.NoRunInFlight,
      'This job has no run queued, running or paused. Start one with POST /v1/jobs/{id}/rerun or /retry-failed.',
    );
  }

  /**
   * A new run that replays every task of the job.
   *
   * @throws BatchError `job_not_found`, `job_ingesting`, `run_in_flight`, `quota_exceeded`.
   */
  async rerun(tenantId: string, jobId: string): Promise<RunRecord> {
    return this.startRun(tenantId, jobId, 'rerun', async (sql, job, runId) => {
      const source = await this.jobRuns.latest(sql, tenantId, jobId);
      await this.runs.insertRun(sql, {
        id: runId,
        jobId,
        tenantId,
        kind: 'rerun',
        total: job.taskCount,
        traceParent: currentTraceParent(),
        sourceRunId: source?.id,
      });
      await this.runs.insertRunTasks(sql, runId, 1, job.taskCount);
    });
  }

  /**
   * A new run made from the job's latest run: its successful results are carried over (counted in
   * `successful`, not billed again), its failed tasks — and with `includeNotStarted` the tasks it
   * never started — run again. `total` is the number of rows of the new run.
   *
   * The latest run must have settled: a task a worker may still be fetching (a claim with a live
   * lease) has its answer recorded and billed on that run, so queueing it again would bill it twice.
   * That is `run_in_flight` until each claim is answered, handed back or expired. Expired claims are
   * handed back here (a late answer is then ignored) and count as not started.
   *
   * @throws BatchError `job_not_found`, `job_ingesting`, `run_in_flight`, `quota_exceeded`,
   *   `nothing_to_retry` (also when the job has never run).
   */
  async retryFailed(tenantId: string, jobId: string, includeNotStarted: boolean): Promise<RunRecord> {
    return this.startRun(tenantId, jobId, 'retry_failed', async (sql, _job, runId) => {
      const source = await this.jobRuns.latest(sql, tenantId, jobId);
      if (source) {
        await this.jobRuns.holdResults(sql, source.id);
        await this.jobRuns.handBackExpiredClaims(sql, source.id);
      }
      const counts = source ? await this.jobRuns.retryCounts(sql, source.id) : { carried: 0, failed: 0, notStarted: 0, claimed: 0 };
      // With no claim out the source run is final: its rows change no more (an ended run dispatches nothing).
      if (source && counts.claimed > 0) {
        throw new BatchError(
          BatchErrorCode.RunInFlight,
          `The latest run (run ${source.id}) still has ${counts.claimed} task${counts.claimed === 1 ? '' : 's'} out on workers, whose answers it would record and bill; retry once they are answered or handed back (within the task lease, minutes at most).`,
          { run_id: source.id, tasks_in_flight: counts.claimed },
        );
      }
      const requeued = counts.failed + (includeNotStarted ? counts.notStarted : 0);
      if (!source || requeued === 0) {
        const hint = counts.notStarted > 0 ? ' Send `include_not_started: true` to run the tasks it never finished.' : '';
        throw new BatchError(BatchErrorCode.NothingToRetry, `The latest run of this job has no failed task to retry.${hint}`);
      }
      await this.runs.insertRun(sql, {
        id: runId,
        jobId,
        tenantId,
        kind: 'retry_failed',
        total: counts.carried + requeued,
        traceParent: currentTraceParent(),
        sourceRunId: source.id,
      });
      await this.jobRuns.copyForRetry(sql, source.id, runId, includeNotStarted);
    });
  }

  /** Tenant lock, quota, job lock — the order job creation and scheduled firings take — then `fill`. */
  private async startRun(
    tenantId: string,
    jobId: string,
    kind: RunKind,
    fill: (sql: Sql, job: { taskCount: number }, runId: string) => Promise<void>,
  ): Promise<RunRecord> {
    await this.jobs.get(tenantId, jobId);
    const runId = randomUUID();
    await this.db.transaction(async (sql) => {
      const quota = await this.activeJobs.lockTenantAndCount(sql, tenantId);
      if (!quota) throw new Error(`Tenant ${tenantId} of an authenticated key does not exist`);
      const job = await this.runs.lockJob(sql, tenantId, jobId);
      if (!job) throw jobNotFound();
      if (job.ingestState !== 'ready') {
        throw new BatchError(BatchErrorCode.JobIngesting, 'The tasks of this job are still being written; retry in a few seconds.');
      }
      const inFlight = await this.runs.runInFlight(sql, tenantId, jobId);
      if (inFlight) {
        throw new BatchError(
          BatchErrorCode.RunInFlight,
          `A run of this job is still in flight (run ${inFlight.runId}); stop it or wait for it to end before a ${kind === 'rerun' ? 'rerun' : 'retry'}.`,
          { run_id: inFlight.runId },
        );
      }
      if (quota.active >= quota.maxActiveJobs) throw quotaExceeded(quota);
      await fill(sql, job, runId);
    });
    return this.get(tenantId, jobId, runId);
  }
}

function invalidCursor(): BatchError {
  return new BatchError(
    BatchErrorCode.InvalidJobsCursor,
    'This cursor was not handed out for this list; use the `next_cursor` you received.',
  );
}
