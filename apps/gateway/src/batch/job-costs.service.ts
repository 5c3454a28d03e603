import { Injectable } from '@nestjs/common';
import { CreditEstimate, estimateCredits } from './cost-estimate';
import { JobRunsRepository, type LedgerTier } from './job-runs.repository';
import { JobRunsService } from './job-runs.service';
import { JobsRepository, RunRecord } from './jobs.repository';
import { JobsService } from './jobs.service';

export interface RunCredits {
  run: RunRecord;
  /** The run's totals, over every tier. */
  credits: number;
  costUsd: number;
  unpricedCredits: number;
  byTier: LedgerTier[];
}

/** What a job would cost to run, and what one of its runs did cost (spec-batch-api §1 pricing). */
@Injectable()
export class JobCostsService {
  constructor(
    private readonly jobs: JobsService,
    private readonly jobsRepository: JobsRepository,
    private readonly runs: JobRunsService,
    private readonly jobRuns: JobRunsRepository,
  ) {}

  /** @throws BatchError `job_not_found`. */
  async estimate(tenantId: string, jobId: string): Promise<CreditEstimate> {
    const job = await this.jobs.get(tenantId, jobId);
    return estimateCredits(job.serviceParams, await this.jobsRepository.taskParamGroups(tenantId, jobId));
  }

  /** The credits the ledger holds for the run's tasks. @throws BatchError `job_not_found`, `run_not_found`. */
  async actual(tenantId: string, jobId: string, runId: string): Promise<RunCredits> {
    const run = await this.runs.get(tenantId, jobId, runId);
    const byTier = await this.jobRuns.ledgerCredits(tenantId, run.id);
    const total = (of: (tier: LedgerTier) => number) => byTier.reduce((sum, tier) => sum + of(tier), 0);
    return {
      run,
      credits: total((t) => t.credits),
      costUsd: total((t) => t.costUsd),
      unpricedCredits: total((t) => t.unpricedCredits),
      byTier,
    };
  }
}
