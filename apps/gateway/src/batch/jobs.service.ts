import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { currentTraceParent } from '@trawl/observability';
import { ActiveJobsRepository, Database, RunsRepository } from '@trawl/persistence';
import { RequestError, RequestErrorCode } from '../problems/request.errors';
import { SigningKeysService } from '../webhooks/signing-keys.service';
import { parseWebhookUrl } from '../webhooks/webhook-url';
import { WebhookError, WebhookErrorCode } from '../webhooks/webhooks.errors';
import { BatchError, BatchErrorCode } from './batch.errors';
import { BATCH_LIMITS, checkTasks, CreateJobBody } from './job-request.schema';
import { JobListFilter, JobRecord, JobsRepository } from './jobs.repository';
import { checkServiceParams } from './service-params';

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
  ) {}

  /**
   * Validates the whole submission first (job parameters, webhook, every task), then in one
   * transaction checks the active-job limit under the tenant lock and writes job, tasks and run.
   *
   * @throws RequestError `invalid_parameter`; BatchError `invalid_tasks`, `quota_exceeded`,
   *   `idempotency_key_conflict`, `file_input_not_found`; WebhookError `callback_url_must_be_https`,
   *   `webhook_signing_requires_active_key`.
   */
  async create(tenantId: string, body: CreateJobBody, idempotencyKey: string | undefined): Promise<CreatedJob> {
    this.checkJobParams(body.service_params);
    const webhook = await this.checkWebhook(tenantId, body.webhook);
    if ((body.file_input_id ?? null) !== null) {
      throw new BatchError(BatchErrorCode.FileInputNotFound, `No uploaded CSV input ${body.file_input_id} on your account.`);
    }
    const { tasks, invalid, invalidCount } = checkTasks(body.tasks ?? [], body.service_params);
    if (invalidCount > 0) throw BatchError.invalidTasks(invalid, invalidCount);

    const jobId = randomUUID();
    await this.db.transaction(async (sql) => {
      const quota = await this.activeJobs.lockTenantAndCount(sql, tenantId);
      if (!quota) throw new Error(`Tenant ${tenantId} of an authenticated key does not exist`);
      if (quota.active >= quota.maxActiveJobs) {
        throw new BatchError(
          BatchErrorCode.QuotaExceeded,
          `Your account already has ${quota.active} of its ${quota.maxActiveJobs} active jobs (crawls included); retry when one ends.`,
        );
      }
      const inserted = await this.jobs.insertJob(sql, {
        id: jobId,
        tenantId,
        type: body.type,
        status: body.status,
        serviceParams: body.service_params,
        webhook,
        idempotencyKey: idempotencyKey ?? null,
        taskCount: tasks.length,
        ingestState: 'ready',
      });
      if (!inserted) {
        throw new BatchError(
          BatchErrorCode.IdempotencyKeyConflict,
          'This idempotency key was used before; a key is good for one job. Read the job list to find the first one.',
        );
      }
      await this.jobs.insertTasks(sql, jobId, 1, tasks);
      const runId = randomUUID();
      await this.runs.insertRun(sql, { id: runId, jobId, tenantId, kind: 'initial', total: tasks.length, traceParent: currentTraceParent() });
      await this.runs.insertRunTasks(sql, runId, 1, tasks.length);
    });
    return { job: await this.get(tenantId, jobId), synchronous: tasks.length < BATCH_LIMITS.synchronousTasks };
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
      const run = job.latestRun && !isFinished(job.latestRun.status) ? job.latestRun : null;
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

  private checkJobParams(params: Record<string, unknown>): void {
    const checked = checkServiceParams(PROBE_URL, params);
    if (!checked.ok) {
      const parameter = `service_params.${checked.problem.parameter}`;
      throw new RequestError(RequestErrorCode.ParameterOutOfRange, `\`${parameter}\`: ${checked.problem.reason}`, { parameter });
    }
  }

  private async checkWebhook(
    tenantId: string,
    webhook: CreateJobBody['webhook'],
  ): Promise<{ url: string; signature: boolean } | null> {
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

function isFinished(status: string): boolean {
  return status === 'completed' || status === 'stopped' || status === 'failed' || status === 'deleted';
}

function jobNotFound(): BatchError {
  return new BatchError(BatchErrorCode.JobNotFound, 'No job with this id on your account.');
}
