import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { isFinishedRunStatus, type Schedule } from '@trawl/contracts';
import { BATCH_LIMITS, type CreateJobBody } from '@trawl/contracts/http';
import { currentTraceParent } from '@trawl/observability';
import { ActiveJobsRepository, Database, RunsRepository, type Sql } from '@trawl/persistence';
import { Clock, scheduleOnReplace, scheduleSchemaAsOf } from '@trawl/scheduling';
import { JobInputsService } from '../job-inputs/job-inputs.service';
import { ApiError } from '../problems/api-error';
import { RequestError, RequestErrorCode } from '../problems/request.errors';
import { SigningKeysService } from '../webhooks/signing-keys.service';
import { parseWebhookUrl } from '../webhooks/webhook-url';
import { WebhookError, WebhookErrorCode } from '../webhooks/webhooks.errors';
import { BatchError, BatchErrorCode } from './batch.errors';
import { BATCH_CLOCK } from './batch.tokens';
import { IngestRecord, JobIngestsRepository } from './job-ingests.repository';
import { checkTasks } from './task-checks';
import { JobSchedulesRepository } from './job-schedules.repository';
import { JobListFilter, JobRecord, JobsRepository } from './jobs.repository';
import { checkServiceParams } from './service-params';
import { INGEST_LEASE_SECONDS, TaskIngestService } from './task-ingest.service';

/** Any public URL will do: job-level parameters are checked before there is a task to check them with. */
const PROBE_URL = 'https://example.com/';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface CreatedJob {
  job: JobRecord;
  /** `201` for fewer than 10,000 tasks; `202` from 10,000 up (spec-batch-api §4 POST /jobs). */
  synchronous: boolean;
}

/**
 * Jobs of the Batch API: creating (with their first run), reading, listing, adding tasks and
 * closing. Runs are executed by the scheduler and the fetch workers (docs/design-batch.md).
 */
@Injectable()
export class JobsService {
  constructor(
    private readonly db: Database,
    private readonly jobs: JobsRepository,
    private readonly activeJobs: ActiveJobsRepository,
    private readonly runs: RunsRepository,
    private readonly signingKeys: SigningKeysService,
    private readonly schedules: JobSchedulesRepository,
    private readonly ingests: JobIngestsRepository,
    private readonly ingest: TaskIngestService,
    @Inject(BATCH_CLOCK) private readonly clock: Clock,
    private readonly jobInputs: JobInputsService,
  ) {}

  /**
   * Validates the whole submission first (job parameters, schedule, webhook, every task), then in
   * one transaction checks the idempotency key, then the active-job limit, under the tenant lock, and
   * writes the job with its first run. Under 10,000 tasks the task rows are written in that
   * transaction too; from 10,000 up the transaction stores the checked tasks in a staging row
   * (`ingest_state = ingesting`, the run's `total` exact at once) and the rows are written right
   * after (`TaskIngestService`). A scheduled job gets its schedule row and no run: its first run is
   * its first firing, so it takes no active-job slot until then.
   *
   * @throws RequestError `invalid_parameter`; BatchError `invalid_tasks`, `quota_exceeded`,
   *   `idempotency_key_conflict` (naming the holder in `job_id`), `file_input_not_found`;
   *   JobInputError `file_input_used`, `file_input_expired`, `file_input_not_uploaded`; WebhookError
   *   `callback_url_must_be_https`, `webhook_signing_requires_active_key`.
   */
  async create(tenantId: string, body: CreateJobBody, idempotencyKey: string | undefined): Promise<CreatedJob> {
    const now = this.clock.now();
    const { schedule, webhook, tasks } = await this.refusalOrKeyConflict(tenantId, idempotencyKey, async () => {
      this.checkJobParams(body.service_params);
      const checkedSchedule = body.schedule ? checkScheduleAsOf(body.schedule, now) : null;
      const checkedWebhook = await this.checkWebhook(tenantId, body.webhook);
      const checked = checkTasks(body.tasks ?? [], body.service_params);
      if (checked.invalidCount > 0) throw BatchError.invalidTasks(checked.invalid, checked.invalidCount);
      return { schedule: checkedSchedule, webhook: checkedWebhook, tasks: checked.tasks };
    });
    const fileInputId = body.file_input_id ?? null;

    const jobId = randomUUID();
    const large = tasks.length >= BATCH_LIMITS.synchronousTasks;
    // Serialised before the tenant lock is taken: ~100 ms for 100,000 tasks.
    const tasksJson = large ? JSON.stringify(tasks) : '';
    let taskCount = tasks.length;
    const ingest = await this.db.transaction(async (sql) => {
      const quota = await this.activeJobs.lockTenantAndCount(sql, tenantId);
      if (!quota) throw new Error(`Tenant ${tenantId} of an authenticated key does not exist`);
      // Before the limit and the CSV claim: a used key is `409 idempotency_key_conflict` whatever else
      // the resend would have hit (spec §4). The tenant lock orders it after any first use in flight.
      const conflict = await this.keyConflict(sql, tenantId, idempotencyKey);
      if (conflict) throw conflict;
      if (!schedule && quota.active >= quota.maxActiveJobs) throw quotaExceeded(quota);
      // A CSV input's rows were checked at upload; they become the tasks in this transaction (spec §4: CSV → 202).
      if (fileInputId !== null) taskCount = await this.jobInputs.claimForJob(sql, tenantId, fileInputId, jobId);
      const inserted = await this.jobs.insertJob(sql, {
        id: jobId,
        tenantId,
        type: body.type,
        status: body.status,
        serviceParams: body.service_params,
        webhook,
        idempotencyKey: idempotencyKey ?? null,
        fileInputId,
        taskCount,
        ingestState: large ? 'ingesting' : 'ready',
      });
      if (!inserted) {
        // `ON CONFLICT` waited for the holder's commit, so this read (a new snapshot) finds it.
        throw (
          (await this.keyConflict(sql, tenantId, idempotencyKey)) ??
          new Error(`Job ${jobId} conflicted on a key no job of its tenant holds`)
        );
      }
      let runId: string | null = null;
      if (schedule) {
        await this.schedules.insert(sql, { tenantId, jobId, schedule, ...scheduleOnReplace(schedule, undefined, now) });
      } else {
        runId = randomUUID();
        await this.runs.insertRun(sql, {
          id: runId,
          jobId,
          tenantId,
          kind: 'initial',
          total: taskCount,
          traceParent: currentTraceParent(),
        });
      }
      if (large) {
        const staged: IngestRecord = {
          jobId,
          tenantId,
          runId,
          tasksJson,
          taskCount: tasks.length,
          nextSeq: 1,
          leaseToken: this.ingest.newLeaseToken(),
        };
        await this.ingests.insert(sql, staged, INGEST_LEASE_SECONDS);
        return staged;
      }
      if (fileInputId !== null) await this.jobInputs.moveRowsToJob(sql, fileInputId, jobId);
      else await this.jobs.insertTasks(sql, jobId, 1, tasks);
      if (runId) await this.runs.insertRunTasks(sql, runId, 1, taskCount);
      return undefined;
    });
    if (ingest) this.ingest.start(ingest, tasks);
    return { job: await this.get(tenantId, jobId), synchronous: fileInputId === null && !large };
  }

  /** @throws BatchError `job_not_found` (also for another tenant's job, or a malformed id). */
  async get(tenantId: string, jobId: string): Promise<JobRecord> {
    const job = UUID.test(jobId) ? await this.jobs.find(tenantId, jobId) : undefined;
    if (!job) throw jobNotFound();
    return job;
  }

  list(
    tenantId: string,
    filter: JobListFilter,
    after: { createdAtMicros: string; id: string } | undefined,
    limit: number,
  ): Promise<JobRecord[]> {
    return this.jobs.list(tenantId, filter, after, limit);
  }

  /**
   * Appends tasks to an open job and to its run in flight; `lastBatch` closes the job.
   *
   * @throws BatchError `job_not_found`, `job_closed`, `job_ingesting`, `invalid_tasks`.
   */
  async addTasks(tenantId: string, jobId: string, rawTasks: readonly unknown[], lastBatch: boolean): Promise<JobRecord> {
    const current = await this.get(tenantId, jobId);
    const { tasks, invalid, invalidCount } = checkTasks(rawTasks, current.serviceParams);
    if (invalidCount > 0) throw BatchError.invalidTasks(invalid, invalidCount);
    await this.db.transaction(async (sql) => {
      const job = await this.jobs.lock(sql, tenantId, jobId);
      if (!job) throw jobNotFound();
      if (job.status === 'closed') {
        throw new BatchError(BatchErrorCode.JobClosed, 'This job is closed: no task can be added. Create a new job.');
      }
      if (job.ingestState === 'ingesting') {
        throw new BatchError(BatchErrorCode.JobIngesting, 'The tasks of this job are still being written; retry in a few seconds.');
      }
      const run = job.latestRun && !isFinishedRunStatus(job.latestRun.status) ? job.latestRun : null;
      await this.jobs.insertTasks(sql, jobId, job.taskCount + 1, tasks);
      if (run) await this.runs.insertRunTasks(sql, run.id, job.taskCount + 1, tasks.length);
      await this.jobs.addToTaskCount(sql, jobId, run?.id ?? null, tasks.length);
      if (lastBatch) await this.jobs.close(sql, jobId);
    });
    return this.get(tenantId, jobId);
  }

  /** Closes an open job (closing a closed job changes nothing). @throws BatchError `job_not_found`. */
  async close(tenantId: string, jobId: string): Promise<JobRecord> {
    await this.get(tenantId, jobId);
    await this.db.transaction(async (sql) => {
      const job = await this.jobs.lock(sql, tenantId, jobId);
      if (!job) throw jobNotFound();
      if (job.status === 'open') await this.jobs.close(sql, jobId);
    });
    return this.get(tenantId, jobId);
  }

  /**
   * Runs checks of a submission (its body's shape, its tasks, its webhook); when one refuses it and
   * the submission's idempotency key was used before, answers `409 idempotency_key_conflict`
   * instead: spec §4 gives the conflict for any reuse of a key, whether or not the body is the
   * same, so a client that deduplicates on 409 never reads a resend as a new request that failed.
   * Only refusals are turned into the conflict, not failures (a lost database is still a 5xx).
   * Read without the tenant lock: a used key stays used.
   *
   * @throws BatchError `idempotency_key_conflict` (with the holding job's `job_id`), or what `checks` threw.
   */
  async refusalOrKeyConflict<T>(tenantId: string, idempotencyKey: string | undefined, checks: () => T | Promise<T>): Promise<T> {
    try {
      return await checks();
    } catch (error) {
      const conflict = error instanceof ApiError ? await this.keyConflict(this.db, tenantId, idempotencyKey) : undefined;
      throw conflict ?? error;
    }
  }

  /**
   * `409 idempotency_key_conflict` naming the tenant's job that holds the key (spec §4 keeps the
   * conflict and no replay; the `job_id` lets a client whose create was answered but lost read it),
   * or undefined when there is no key or no job holds it.
   */
  private async keyConflict(sql: Sql, tenantId: string, idempotencyKey: string | undefined): Promise<BatchError | undefined> {
    if (idempotencyKey === undefined) return undefined;
    const holder = await this.jobs.findJobIdByIdempotencyKey(sql, tenantId, idempotencyKey);
    return holder === undefined ? undefined : BatchError.idempotencyKeyConflict(holder);
  }

  private checkJobParams(params: Record<string, unknown>): void {
    const checked = checkServiceParams(PROBE_URL, params);
    if (!checked.ok) {
      const parameter = `service_params.${checked.problem.parameter}`;
      throw new RequestError(RequestErrorCode.ParameterOutOfRange, `\`${parameter}\`: ${checked.problem.reason}`, { parameter });
    }
  }

  private async checkWebhook(tenantId: string, webhook: CreateJobBody['webhook']): Promise<{ url: string; signature: boolean } | null> {
    if (!webhook) return null;
    const url = parseWebhookUrl(webhook.url, 'webhook.url');
    if (webhook.signature && !(await this.signingKeys.hasActiveKey(tenantId))) {
      throw new WebhookError(
        WebhookErrorCode.SigningRequiresActiveKey,
        'A signed webhook needs an active signing key: create one with POST /v1/hmac/keys/rotate first.',
      );
    }
    return { url: url.href, signature: webhook.signature };
  }
}

export function quotaExceeded(quota: { active: number; maxActiveJobs: number }): BatchError {
  return new BatchError(
    BatchErrorCode.QuotaExceeded,
    `Your account already has ${quota.active} of its ${quota.maxActiveJobs} active jobs (crawls included); retry when one ends.`,
  );
}

/** The `at` of a one-shot schedule must lie ahead (`scheduleSchemaAsOf`); the rest was checked with the body. */
export function checkScheduleAsOf(schedule: Schedule, now: Date): Schedule {
  const checked = scheduleSchemaAsOf(now).safeParse(schedule);
  if (checked.success) return checked.data;
  const issue = checked.error.issues[0];
  const parameter = ['schedule', ...(issue?.path ?? [])].join('.');
  throw new RequestError(RequestErrorCode.ParameterOutOfRange, `\`${parameter}\` ${issue?.message ?? 'is not valid'}.`, { parameter });
}

export function jobNotFound(): BatchError {
  return new BatchError(BatchErrorCode.JobNotFound, 'No job with this id on your account.');
}
