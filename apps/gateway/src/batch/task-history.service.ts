import { Inject, Injectable } from '@nestjs/common';
import type { TaskHistoryAnswer } from '@trawl/contracts/http';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { costOfCredits } from './credit-cost';
import { JobResultsRepository } from './job-results.repository';
import { JobRunsService } from './job-runs.service';
import { seqOf, taskNotFound } from './task-content.service';

/**
 * A task's attempts in a run, oldest first (what the public Node SDK's `taskHistory` reads): when
 * each dispatch started and ended, why it failed, and what it cost. A lease that ran out without an
 * answer is an attempt too (`task_lease_expired`); a claim a worker handed back unrun is not.
 */
@Injectable()
export class TaskHistoryService {
  constructor(
    private readonly runs: JobRunsService,
    private readonly results: JobResultsRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'FETCH_CREDIT_PRICE_USD'>,
  ) {}

  /** @throws BatchError `job_not_found`, `run_not_found`, `task_not_found`. */
  async history(tenantId: string, jobId: string, runId: string | undefined, taskId: string): Promise<TaskHistoryAnswer> {
    const run = await this.runs.runOrLatest(tenantId, jobId, runId);
    const seq = seqOf(taskId);
    if (!run || seq === undefined || !(await this.results.hasTask(tenantId, run.id, seq))) throw taskNotFound();
    const attempts = await this.results.attempts(run.id, seq);
    return {
      events: attempts.map((attempt) => ({
        attempt: attempt.attempt,
        ...(attempt.startedAt && { started_at: attempt.startedAt.toISOString() }),
        ended_at: attempt.endedAt.toISOString(),
        outcome: attempt.outcome,
        ...(attempt.errorCode !== null && { error: { code: attempt.errorCode, detail: attempt.errorDetail ?? '' } }),
        spend: { credits: attempt.credits, cost: costOfCredits(attempt.credits, this.config.FETCH_CREDIT_PRICE_USD) },
      })),
    };
  }
}
