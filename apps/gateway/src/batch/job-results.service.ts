import { Inject, Injectable } from '@nestjs/common';
import { type ChangeStatus, isFinishedRunStatus } from '@trawl/contracts';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { BatchError, BatchErrorCode } from './batch.errors';
import { resultsCursor } from './job-cursors';
import { TaskResultRecord, JobResultsRepository } from './job-results.repository';
import { JobRunsService } from './job-runs.service';
import { JobRecord, RunRecord } from './jobs.repository';
import { JobsService } from './jobs.service';

export interface ResultsQuery {
  /** The run to read; default the job's latest. */
  runId?: string;
  cursor?: string;
  successfulOnly: boolean;
  /** Only tasks whose answer had one of these `change_status` verdicts. */
  changeStatuses?: readonly ChangeStatus[];
  limit: number;
}

export interface ResultsPage {
  job: JobRecord;
  run: RunRecord | undefined;
  results: TaskResultRecord[];
  /**
   * `null` once the page reached the run's last task and nothing can still come: no task can be
   * added to the run and, with `status=successful`, no task of it can still turn successful.
   */
  nextCursor: string | null;
}

/** Results of a job's runs (spec-batch-api §4 GET /jobs/{job_id}/results), about 1,000 a page. */
@Injectable()
export class JobResultsService {
  constructor(
    private readonly jobs: JobsService,
    private readonly runs: JobRunsService,
    private readonly results: JobResultsRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewayConfig, 'BATCH_RESULTS_PAGE_BYTES'>,
  ) {}

  /**
   * Reads the job and run BEFORE the rows, so a run seen as ended has every row it will ever hold.
   *
   * @throws BatchError `job_not_found`, `run_not_found`, `invalid_jobs_cursor`.
   */
  async page(tenantId: string, jobId: string, query: ResultsQuery): Promise<ResultsPage> {
    const cursor = query.cursor === undefined ? undefined : resultsCursor.decode(query.cursor);
    if (query.cursor !== undefined && (!cursor || (query.runId !== undefined && cursor.runId !== query.runId))) {
      throw new BatchError(
        BatchErrorCode.InvalidJobsCursor,
        'This cursor was not handed out for these results; use the `next_cursor` you received.',
      );
    }
    const job = await this.jobs.get(tenantId, jobId);
    const runId = cursor?.runId ?? query.runId ?? job.latestRun?.id;
    // A scheduled job that has not fired yet has no run, hence no results.
    if (runId === undefined) return { job, run: undefined, results: [], nextCursor: null };
    const run = await this.runs.get(tenantId, jobId, runId);
    const afterSeq = cursor?.seq ?? 0;
    const filtered = query.successfulOnly || query.changeStatuses !== undefined;
    const {
      results: rows,
      scanned,
      pendingFrom,
    } = await this.results.page(tenantId, jobId, runId, {
      afterSeq,
      limit: query.limit + 1,
      successfulOnly: query.successfulOnly,
      ...(query.changeStatuses && { changeStatuses: query.changeStatuses }),
      bodyBudgetBytes: this.config.BATCH_RESULTS_PAGE_BYTES,
      // Filtered, a task not yet answered is not listed but may still match (on an ended run only
      // a claim still out can: the run records answers that come after a stop). The page stops
      // before the first such task, so the cursor never passes a result still to come.
      pendingStates: !filtered ? [] : isFinishedRunStatus(run.status) ? ['dispatched'] : ['queued', 'dispatched'],
    });
    const results = rows.slice(0, query.limit);
    const reachedEnd = scanned <= query.limit && rows.length === scanned;
    const canGrow = job.ingestState === 'ingesting' || (job.status === 'open' && !isFinishedRunStatus(run.status)) || pendingFrom !== null;
    const lastSeq = results.at(-1)?.seq ?? afterSeq;
    return { job, run, results, nextCursor: reachedEnd && !canGrow ? null : resultsCursor.encode({ runId, seq: lastSeq }) };
  }
}
