import { randomUUID } from 'node:crypto';
import { ActiveJobsRepository, RunsRepository, Sql } from '@trawl/persistence';
import type { RunStarter, ScheduledRunRequest, ScheduledRunStart } from '../schedules/run-starter';

/**
 * Starts the runs of scheduled batch jobs, inside the firing's transaction: the tenant lock and
 * active-job count are the same as for a job created over the API, and the run queues every task
 * of the job in one statement, so the firing holds its locks for milliseconds even at 100k tasks.
 */
export class BatchRunStarter implements RunStarter {
  constructor(
    private readonly runs: RunsRepository = new RunsRepository(),
    private readonly activeJobs: ActiveJobsRepository = new ActiveJobsRepository(),
  ) {}

  runInFlight(sql: Sql, job: { tenantId: string; jobId: string }): Promise<{ runId: string } | undefined> {
    return this.runs.runInFlight(sql, job.tenantId, job.jobId);
  }

  async startScheduledRun(sql: Sql, request: ScheduledRunRequest): Promise<ScheduledRunStart> {
    // Tenant first, then job: the order every other writer of both takes.
    const quota = await this.activeJobs.lockTenantAndCount(sql, request.tenantId);
    if (!quota) return { outcome: 'refused', reason: 'job_unavailable' };
    const job = await this.runs.lockJob(sql, request.tenantId, request.jobId);
    if (!job || job.type !== 'scheduled' || job.ingestState !== 'ready') return { outcome: 'refused', reason: 'job_unavailable' };
    // The firing's earlier look took no lock: a rerun or retry-failed may have committed a run since.
    // Reruns check under this same job lock, so of the two at most one run is ever started.
    if (await this.runs.runInFlight(sql, request.tenantId, request.jobId)) return { outcome: 'refused', reason: 'previous_running' };
    if (quota.active >= quota.maxActiveJobs) return { outcome: 'refused', reason: 'quota_exceeded' };
    const runId = randomUUID();
    await this.runs.insertRun(sql, {
      id: runId,
      jobId: request.jobId,
      tenantId: request.tenantId,
      kind: 'scheduled',
      total: job.taskCount,
      traceParent: undefined,
    });
    await this.runs.insertRunTasks(sql, runId, 1, job.taskCount);
    return { outcome: 'started', runId };
  }
}
