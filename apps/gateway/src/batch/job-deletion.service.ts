import { Injectable } from '@nestjs/common';
import { ActiveJobsRepository, Database, RunsRepository, Sql } from '@trawl/persistence';
import { BatchError, BatchErrorCode } from './batch.errors';
import { JobRunsRepository } from './job-runs.repository';
import { JobRunsService } from './job-runs.service';
import { jobNotFound, JobsService } from './jobs.service';
import { JobsRepository } from './jobs.repository';

/**
 * Deleting a job, or one run's results (docs/decisions/batch-api.md, "Deleting"). Neither touches a
 * run in flight: its tasks are out on workers, whose answers would land in rows being deleted and be
 * billed for nothing; the caller stops it first. Billing history (the credit ledger) and webhook
 * deliveries already made stay.
 */
@Injectable()
export class JobDeletionService {
  constructor(
    private readonly db: Database,
    private readonly jobs: JobsService,
    private readonly jobRuns: JobRunsService,
    private readonly jobsRepository: JobsRepository,
    private readonly runsRepository: JobRunsRepository,
    private readonly runs: RunsRepository,
    private readonly activeJobs: ActiveJobsRepository,
  ) {}

  /**
   * Deletes the job with its tasks, runs, results, exports and schedule.
   *
   * @throws BatchError `job_not_found`, `run_in_flight`, `job_ingesting`.
   */
  async deleteJob(tenantId: string, jobId: string): Promise<void> {
    await this.jobs.get(tenantId, jobId);
    await this.underJobLock(tenantId, jobId, async (sql, job) => {
      if (job.ingestState !== 'ready') {
        throw new BatchError(BatchErrorCode.JobIngesting, 'The tasks of this job are still being written; delete it in a few seconds.');
      }
      const inFlight = await this.runs.runInFlight(sql, tenantId, jobId);
      if (inFlight) {
        throw new BatchError(
          BatchErrorCode.RunInFlight,
          `A run of this job is still in flight (run ${inFlight.runId}); stop it before deleting the job.`,
          { run_id: inFlight.runId },
        );
      }
      if (!(await this.jobsRepository.delete(sql, tenantId, jobId))) throw jobNotFound();
    });
  }

  /**
   * Deletes an ended run's results and exports; the run stays listed as `deleted`, with its counts
   * and spend. Deleting a deleted run changes nothing.
   *
   * @throws BatchError `job_not_found`, `run_not_found`, `run_in_flight`.
   */
  async deleteRun(tenantId: string, jobId: string, runId: string): Promise<void> {
    const run = await this.jobRuns.get(tenantId, jobId, runId);
    if (run.status === 'deleted') return;
    await this.underJobLock(tenantId, jobId, async (sql) => {
      if (await this.runsRepository.markDeleted(sql, runId)) return;
      const now = await this.runsRepository.find(tenantId, jobId, runId, sql);
      if (now && now.status !== 'deleted') {
        throw new BatchError(
          BatchErrorCode.RunInFlight,
          `Run ${runId} is still in flight; stop it (POST /v1/jobs/${jobId}/stop) before deleting it.`,
          { run_id: runId },
        );
      }
    });
  }

  /** Tenant lock, then job lock: the order job creation, reruns and scheduled firings take. */
  private async underJobLock(
    tenantId: string,
    jobId: string,
    work: (sql: Sql, job: NonNullable<Awaited<ReturnType<RunsRepository['lockJob']>>>) => Promise<void>,
  ): Promise<void> {
    await this.db.transaction(async (sql) => {
      if (!(await this.activeJobs.lockTenantAndCount(sql, tenantId)))
        throw new Error(`Tenant ${tenantId} of an authenticated key does not exist`);
      const job = await this.runs.lockJob(sql, tenantId, jobId);
      if (!job) throw jobNotFound();
      await work(sql, job);
    });
  }
}
