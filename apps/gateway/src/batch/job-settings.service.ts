import { Inject, Injectable } from '@nestjs/common';
import type { Schedule, ScheduleState } from '@trawl/contracts';
import { Database } from '@trawl/persistence';
import { Clock, nextDueOnStateChange, scheduleOnReplace } from '@trawl/scheduling';
import { SigningKeysService } from '../webhooks/signing-keys.service';
import { parseWebhookUrl } from '../webhooks/webhook-url';
import { WebhookError, WebhookErrorCode } from '../webhooks/webhooks.errors';
import { BatchError, BatchErrorCode } from './batch.errors';
import { BATCH_CLOCK } from './batch.tokens';
import { firingListCursor } from './job-cursors';
import { JobSchedulesRepository } from './job-schedules.repository';
import { JobRecord, JobsRepository } from './jobs.repository';
import { checkScheduleAsOf, jobNotFound, JobsService } from './jobs.service';
import { FiringStatusFilter, ScheduleFiringRecord, ScheduleFiringsRepository } from './schedule-firings.repository';

export interface FiringList {
  firings: ScheduleFiringRecord[];
  /** Absent on the last page. */
  nextCursor?: string;
}

/** A job's settings that change after creation: its webhook and (scheduled jobs) its schedule. */
@Injectable()
export class JobSettingsService {
  constructor(
    private readonly db: Database,
    private readonly jobs: JobsService,
    private readonly jobsRepository: JobsRepository,
    private readonly schedules: JobSchedulesRepository,
    private readonly firings: ScheduleFiringsRepository,
    private readonly signingKeys: SigningKeysService,
    @Inject(BATCH_CLOCK) private readonly clock: Clock,
  ) {}

  /**
   * Sets or replaces the webhook; later run events go there.
   *
   * @throws BatchError `job_not_found`; WebhookError `callback_url_must_be_https`,
   *   `webhook_signing_requires_active_key`; RequestError (not an absolute URL, user info).
   */
  async setWebhook(tenantId: string, jobId: string, webhook: { url: string; signature: boolean }): Promise<JobRecord> {
    await this.jobs.get(tenantId, jobId);
    const url = parseWebhookUrl(webhook.url, 'url');
    if (webhook.signature && !(await this.signingKeys.hasActiveKey(tenantId))) {
      throw new WebhookError(
        WebhookErrorCode.SigningRequiresActiveKey,
        'A signed webhook needs an active signing key: create one with POST /v1/hmac/keys/rotate first.',
      );
    }
    if (!(await this.jobsRepository.setWebhook(tenantId, jobId, { url: url.href, signature: webhook.signature }))) throw jobNotFound();
    return this.jobs.get(tenantId, jobId);
  }

  /**
   * The job's webhook as `PUT` set it.
   *
   * @throws BatchError `job_not_found`; WebhookError `webhook_not_found` when the job has none.
   */
  async webhook(tenantId: string, jobId: string): Promise<{ url: string; signature: boolean }> {
    const job = await this.jobs.get(tenantId, jobId);
    if (job.webhookUrl === null)
      throw new WebhookError(WebhookErrorCode.WebhookNotFound, `Job ${jobId} has no webhook: set one with PUT /v1/jobs/${jobId}/webhook.`);
    return { url: job.webhookUrl, signature: job.webhookSignature };
  }

  /** Removes the webhook (removing none changes nothing). @throws BatchError `job_not_found`. */
  async removeWebhook(tenantId: string, jobId: string): Promise<void> {
    await this.jobs.get(tenantId, jobId);
    if (!(await this.jobsRepository.setWebhook(tenantId, jobId, null))) throw jobNotFound();
  }

  /**
   * Replaces the schedule of a scheduled job (its rate grid restarts now; `schedule_state` left out
   * keeps the current state).
   *
   * @throws BatchError `job_not_found`, `job_not_scheduled`; RequestError (`at` in the past).
   */
  async replaceSchedule(tenantId: string, jobId: string, schedule: Schedule): Promise<JobRecord> {
    const now = this.clock.now();
    const checked = checkScheduleAsOf(schedule, now);
    await this.jobs.get(tenantId, jobId);
    await this.db.transaction(async (sql) => {
      const current = await this.schedules.lock(sql, tenantId, jobId);
      if (!current) throw notScheduled();
      await this.schedules.update(sql, { tenantId, jobId, schedule: checked, ...scheduleOnReplace(checked, current.state, now) });
    });
    return this.jobs.get(tenantId, jobId);
  }

  /**
   * The due times the scheduler dealt with, newest first: each started a run or was skipped, with
   * the reason (missed while the scheduler was down, previous run in flight, active-job limit, job
   * unavailable). Skips are kept as long as the job.
   *
   * @throws BatchError `job_not_found`, `job_not_scheduled`, `invalid_jobs_cursor`.
   */
  async listFirings(
    tenantId: string,
    jobId: string,
    status: FiringStatusFilter,
    cursorToken: string | undefined,
    limit: number,
  ): Promise<FiringList> {
    const job = await this.jobs.get(tenantId, jobId);
    if (!job.schedule) throw notScheduled();
    const cursor = cursorToken === undefined ? undefined : firingListCursor.decode(cursorToken);
    if (cursorToken !== undefined && (!cursor || cursor.jobId !== jobId)) {
      throw new BatchError(
        BatchErrorCode.InvalidJobsCursor,
        'This cursor was not handed out for this list; use the `next_cursor` you received.',
      );
    }
    const rows = await this.firings.list(tenantId, jobId, { status, beforeDueAtMicros: cursor?.dueAtMicros }, limit + 1);
    const firings = rows.slice(0, limit);
    const last = firings.at(-1);
    return {
      firings,
      ...(rows.length > limit && last && { nextCursor: firingListCursor.encode({ jobId, dueAtMicros: last.dueAtMicros }) }),
    };
  }

  /** Pauses or resumes the schedule (not a run). @throws BatchError `job_not_found`, `job_not_scheduled`. */
  async setScheduleState(tenantId: string, jobId: string, state: ScheduleState): Promise<JobRecord> {
    const now = this.clock.now();
    await this.jobs.get(tenantId, jobId);
    await this.db.transaction(async (sql) => {
      const current = await this.schedules.lock(sql, tenantId, jobId);
      if (!current) throw notScheduled();
      // Setting the state it has keeps its next due time (resuming an active schedule skips nothing).
      const nextDueAt = current.state === state ? current.nextDueAt : nextDueOnStateChange(current.schedule, current.anchorAt, state, now);
      await this.schedules.update(sql, { tenantId, jobId, schedule: current.schedule, state, anchorAt: current.anchorAt, nextDueAt });
    });
    return this.jobs.get(tenantId, jobId);
  }
}

function notScheduled(): BatchError {
  return new BatchError(
    BatchErrorCode.JobNotScheduled,
    'This job is a `regular` job: it has no schedule. Create a `scheduled` job instead.',
  );
}
