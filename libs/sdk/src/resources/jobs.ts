import { randomUUID } from 'node:crypto';
import { TrawlApiError, TrawlError } from '../errors';
import type {
  AddTasksRequest,
  BatchTask,
  CreateJobRequest,
  Job,
  JobCostEstimate,
  JobExport,
  JobList,
  JobRun,
  JobRunCost,
  JobRunList,
  JobSchedule,
  JobWebhook,
  JobWebhookRequest,
  JobWithAddedTasks,
  ListJobsQuery,
  ListScheduleFiringsQuery,
  ListTaskResultsQuery,
  RetryFailedRequest,
  ScheduleFiring,
  ScheduleFiringList,
  ScheduleRequest,
  StartedRun,
  TaskHistory,
  TaskResult,
  TaskResultsPage,
  WebhookDelivery,
  WebhookDeliveryList,
} from '../generated/api-types';
import { paginate } from '../http/pagination';
import type { ApiCall, Transport } from '../http/transport';
import { waitUntil, type WaitOptions } from '../waiting';

/** Run states after which a run changes no more. */
const FINAL_RUN_STATES: ReadonlySet<JobRun['status']> = new Set(['completed', 'stopped', 'failed', 'deleted']);

/** Whether the run has ended (`completed`, `stopped`, `failed`, `deleted`): what `waitForRun` waits for. */
export function isRunFinished(run: Pick<JobRun, 'status'>): boolean {
  return FINAL_RUN_STATES.has(run.status);
}

type Signal = { signal?: AbortSignal };

/** Batch jobs: submit, add tasks, control runs, read results, schedules, exports and webhooks. */
export class JobsResource {
  constructor(private readonly transport: Transport) {}

  /**
   * Creates a job (`201`, or `202` while a large submission is written). Sent with an
   * `Idempotency-Key` (one is made when not given) so that a retry never creates a second job. The
   * API answers a reused key with `409 idempotency_key_conflict` naming the job that holds it:
   * when the SDK made the key, that job can only be this call's own, so it is returned.
   */
  async create(request: CreateJobRequest, options: { idempotencyKey?: string } & Signal = {}): Promise<Job> {
    const key = options.idempotencyKey ?? randomUUID();
    try {
      return await this.transport.json<Job>({
        method: 'POST',
        path: '/v1/jobs',
        json: request,
        headers: { 'idempotency-key': key },
        retrySafe: true,
        signal: options.signal,
      });
    } catch (error) {
      const heldBy = error instanceof TrawlApiError && error.code === 'idempotency_key_conflict' ? error.problem.job_id : undefined;
      if (options.idempotencyKey === undefined && typeof heldBy === 'string') return this.get(heldBy, options);
      throw error;
    }
  }

  get(jobId: string, options: Signal = {}): Promise<Job> {
    return this.transport.json<Job>(this.call('GET', jobId, '', options));
  }

  /** Deletes the job and all of it; `409 run_in_flight` (a `TrawlApiError`) while a run is in flight. */
  async delete(jobId: string, options: Signal = {}): Promise<void> {
    await this.transport.send(this.call('DELETE', jobId, '', options));
  }

  /** Every job of the account, page by page as iterated. */
  list(query: Omit<ListJobsQuery, 'cursor'> = {}, options: Signal = {}): AsyncGenerator<Job, void, undefined> {
    return paginate(
      (cursor) =>
        this.transport.json<JobList>({
          method: 'GET',
          path: '/v1/jobs',
          query: { ...query, cursor },
          retrySafe: true,
          signal: options.signal,
        }),
      (page) => page.jobs,
      (page) => page.next_cursor,
    );
  }

  /** Adds tasks to an open job. Not retried: a resend would add them twice. */
  addTasks(jobId: string, tasks: readonly BatchTask[], options: { lastBatch?: boolean } & Signal = {}): Promise<JobWithAddedTasks> {
    const body: AddTasksRequest = { tasks: [...tasks], ...(options.lastBatch !== undefined && { last_batch: options.lastBatch }) };
    return this.transport.json<JobWithAddedTasks>({ ...this.call('POST', jobId, '/tasks', options), json: body, retrySafe: false });
  }

  close(jobId: string, options: Signal = {}): Promise<Job> {
    return this.transport.json<Job>(this.call('POST', jobId, '/close', options));
  }

  /** Stops, cancels, pauses or resumes the job's run in flight, answering that run (`409 no_run_in_flight` when there is none). */
  control(jobId: string, action: 'stop' | 'cancel' | 'pause' | 'resume', options: Signal = {}): Promise<JobRun> {
    return this.transport.json<JobRun>(this.call('POST', jobId, `/${action}`, options));
  }

  /** Runs every task again as a new run. Not retried: a resend could start a second run. */
  rerun(jobId: string, options: Signal = {}): Promise<StartedRun> {
    return this.transport.json<StartedRun>({ ...this.call('POST', jobId, '/rerun', options), retrySafe: false });
  }

  /** Runs the latest run's failed tasks again as a new run. Not retried, as `rerun`. */
  retryFailed(jobId: string, request: RetryFailedRequest = {}, options: Signal = {}): Promise<StartedRun> {
    return this.transport.json<StartedRun>({ ...this.call('POST', jobId, '/retry-failed', options), json: request, retrySafe: false });
  }

  runs(jobId: string, options: Signal = {}): AsyncGenerator<JobRun, void, undefined> {
    return paginate(
      (cursor) => this.transport.json<JobRunList>({ ...this.call('GET', jobId, '/runs', options), query: { cursor } }),
      (page) => page.runs,
      (page) => page.next_cursor,
    );
  }

  run(jobId: string, runId: string, options: Signal = {}): Promise<JobRun> {
    return this.transport.json<JobRun>(this.call('GET', jobId, `/runs/${encodeURIComponent(runId)}`, options));
  }

  /** Deletes an ended run's results and exports (the run stays, `deleted`); safe to resend. */
  async deleteRun(jobId: string, runId: string, options: Signal = {}): Promise<void> {
    await this.transport.send(this.call('DELETE', jobId, `/runs/${encodeURIComponent(runId)}`, options));
  }

  /**
   * Resolves with the run once it has ended (`completed`, `stopped`, `failed`), polling it;
   * `onProgress` hears each poll (status and `stats`). Without `runId`, the job's latest run.
   *
   * @throws TrawlTimeoutError past `timeoutMs`; TrawlAbortError when `signal` aborts; TrawlError
   *   when the job has no run yet.
   */
  async waitForRun(jobId: string, runId?: string, options: WaitOptions<JobRun> = {}): Promise<JobRun> {
    let id = runId;
    if (id === undefined) {
      const job = await this.get(jobId, options);
      if (job.latest_run === undefined)
        throw new TrawlError(`Job ${jobId} has no run to wait for (a scheduled job before its first firing)`);
      id = job.latest_run.run_id;
    }
    const run = id;
    return waitUntil(() => this.run(jobId, run, options), isRunFinished, {
      pollIntervalMs: 2_000,
      ...options,
      what: `run ${run} of job ${jobId} to end`,
    });
  }

  /** Every task result of a run (the latest by default), page by page as iterated. */
  results(
    jobId: string,
    query: Omit<ListTaskResultsQuery, 'cursor'> = {},
    options: Signal = {},
  ): AsyncGenerator<TaskResult, void, undefined> {
    return paginate(
      (cursor) => this.transport.json<TaskResultsPage>({ ...this.call('GET', jobId, '/results', options), query: { ...query, cursor } }),
      (page) => page.results,
      (page) => page.next_cursor,
    );
  }

  costEstimate(jobId: string, options: Signal = {}): Promise<JobCostEstimate> {
    return this.transport.json<JobCostEstimate>(this.call('GET', jobId, '/cost-estimate', options));
  }

  runCost(jobId: string, runId: string, options: Signal = {}): Promise<JobRunCost> {
    return this.transport.json<JobRunCost>(this.call('GET', jobId, `/runs/${encodeURIComponent(runId)}/cost`, options));
  }

  /** Replaces the schedule of a scheduled job. */
  setSchedule(jobId: string, schedule: ScheduleRequest, options: Signal = {}): Promise<Job> {
    return this.transport.json<Job>({ ...this.call('PUT', jobId, '/schedule', options), json: schedule });
  }

  /** Pauses or resumes a schedule. */
  setScheduleState(jobId: string, state: JobSchedule['schedule_state'], options: Signal = {}): Promise<Job> {
    return this.transport.json<Job>({ ...this.call('POST', jobId, '/schedule/state', options), json: { schedule_state: state } });
  }

  scheduleFirings(
    jobId: string,
    query: Omit<ListScheduleFiringsQuery, 'cursor'> = {},
    options: Signal = {},
  ): AsyncGenerator<ScheduleFiring, void, undefined> {
    return paginate(
      (cursor) =>
        this.transport.json<ScheduleFiringList>({ ...this.call('GET', jobId, '/schedule/firings', options), query: { ...query, cursor } }),
      (page) => page.firings,
      (page) => page.next_cursor,
    );
  }

  /** Starts an export of a run's results (the latest by default) as one archive. */
  createExport(jobId: string, runId?: string, options: Signal = {}): Promise<JobExport> {
    return this.transport.json<JobExport>({
      ...this.call('POST', jobId, '/exports', options),
      json: runId === undefined ? {} : { run_id: runId },
      retrySafe: false,
    });
  }

  /**
   * The export's archive as a stream (`.tar.gz`). While it is still being written the API answers
   * `503` with `Retry-After`, which the SDK waits out within its retries.
   */
  async downloadExport(jobId: string, exportId: string, options: Signal = {}): Promise<ReadableStream<Uint8Array>> {
    const response = await this.transport.send(this.call('GET', jobId, `/exports/${encodeURIComponent(exportId)}`, options));
    if (response.body === null) throw new TypeError('The export answered no body');
    return response.body;
  }

  /**
   * A task's content as bytes with its media type: of the job's latest run, or of `runId`'s.
   * `409 task_has_no_content` (a `TrawlApiError`) while the task has none.
   */
  async taskContent(
    jobId: string,
    taskId: string,
    options: Signal & { runId?: string } = {},
  ): Promise<{ contentType: string; body: Uint8Array }> {
    const run = options.runId === undefined ? '' : `/runs/${encodeURIComponent(options.runId)}`;
    const response = await this.transport.send(this.call('GET', jobId, `${run}/tasks/${encodeURIComponent(taskId)}/content`, options));
    return {
      contentType: response.headers.get('content-type') ?? 'application/octet-stream',
      body: new Uint8Array(await response.arrayBuffer()),
    };
  }

  /** A task's attempts, oldest first: of the job's latest run, or of `runId`'s. */
  taskHistory(jobId: string, taskId: string, options: Signal & { runId?: string } = {}): Promise<TaskHistory> {
    const run = options.runId === undefined ? '' : `/runs/${encodeURIComponent(options.runId)}`;
    return this.transport.json<TaskHistory>(this.call('GET', jobId, `${run}/tasks/${encodeURIComponent(taskId)}/history`, options));
  }

  /** The job's webhook; `404 webhook_not_found` (a `TrawlApiError`) when it has none. */
  webhook(jobId: string, options: Signal = {}): Promise<JobWebhook> {
    return this.transport.json<JobWebhook>(this.call('GET', jobId, '/webhook', options));
  }

  setWebhook(jobId: string, webhook: JobWebhookRequest, options: Signal = {}): Promise<Job> {
    return this.transport.json<Job>({ ...this.call('PUT', jobId, '/webhook', options), json: webhook });
  }

  async removeWebhook(jobId: string, options: Signal = {}): Promise<void> {
    await this.transport.send(this.call('DELETE', jobId, '/webhook', options));
  }

  webhookDeliveries(jobId: string, options: Signal = {}): AsyncGenerator<WebhookDelivery, void, undefined> {
    return paginate(
      (cursor) =>
        this.transport.json<WebhookDeliveryList>({ ...this.call('GET', jobId, '/webhook/deliveries', options), query: { cursor } }),
      (page) => page.deliveries,
      (page) => page.next_cursor,
    );
  }

  /** A call on `/v1/jobs/{jobId}{rest}`; reads and actions ending in one state are safe to retry. */
  private call(method: ApiCall['method'], jobId: string, rest: string, options: Signal): ApiCall {
    return { method, path: `/v1/jobs/${encodeURIComponent(jobId)}${rest}`, retrySafe: true, signal: options.signal };
  }
}
