import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { scheduleSchema } from '@trawl/contracts';
import {
  type JobAnswer,
  type JobWebhookAnswer,
  jobWebhookBody,
  LIST_PAGE_LIMITS,
  queryParameterNames,
  SCHEDULE_FIRING_STATUSES,
  type ScheduleFiringListAnswer,
  scheduleFiringListQuery,
  scheduleStateBody,
  wrappedScheduleBody,
} from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { assertNoBody, parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, intQueryParameter, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { JobSettingsService } from './job-settings.service';
import { presentFiring, presentJob } from './job.presenter';
import { enumParameter } from './jobs.controller';

/**
 * A job's webhook and schedule (spec-batch-api §4 PUT/DELETE webhook, PUT schedule, schedule state),
 * and what became of the schedule's due times.
 */
@Controller('v1/jobs/:jobId')
export class JobSettingsController {
  constructor(private readonly settings: JobSettingsService) {}

  /** `{url, signature}`: the job's webhook; `404 webhook_not_found` when it has none. */
  @Get('webhook')
  async webhook(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Query() query: QueryParameters,
  ): Promise<JobWebhookAnswer> {
    assertKnownQueryParameters(query, []);
    return this.settings.webhook(tenant.tenantId, jobId);
  }

  /** Sets or replaces the webhook; answers the job. */
  @Put('webhook')
  async setWebhook(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<JobAnswer> {
    assertKnownQueryParameters(query, []);
    const webhook = parseBody(jobWebhookBody, body);
    return presentJob(await this.settings.setWebhook(tenant.tenantId, jobId, webhook));
  }

  /** `204`: the job has no webhook any more. */
  @Delete('webhook')
  @HttpCode(204)
  async removeWebhook(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ) {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    await this.settings.removeWebhook(tenant.tenantId, jobId);
  }

  /** The body is the `schedule` object itself; `{ "schedule": {…} }` is accepted too. Answers the job. */
  @Put('schedule')
  async replaceSchedule(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<JobAnswer> {
    assertKnownQueryParameters(query, []);
    const schedule = isWrapped(body) ? parseBody(wrappedScheduleBody, body).schedule : parseBody(scheduleSchema, body);
    return presentJob(await this.settings.replaceSchedule(tenant.tenantId, jobId, schedule));
  }

  /**
   * The schedule's due times, newest first, each `started` (with `run_id`) or `skipped` (with `reason`
   * and `detail`); `status=skipped` keeps the skipped ones. Paged like the run list.
   */
  @Get('schedule/firings')
  async listFirings(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Query() query: QueryParameters,
  ): Promise<ScheduleFiringListAnswer> {
    assertKnownQueryParameters(query, queryParameterNames(scheduleFiringListQuery));
    const status = enumParameter(query, 'status', SCHEDULE_FIRING_STATUSES);
    const limit = intQueryParameter(query, 'limit', LIST_PAGE_LIMITS);
    const page = await this.settings.listFirings(tenant.tenantId, jobId, status, singleQueryValue(query, 'cursor') || undefined, limit);
    return { firings: page.firings.map(presentFiring), next_cursor: page.nextCursor ?? null };
  }

  /** Pauses or resumes the schedule (not the run in flight); answers the job. */
  @Post('schedule/state')
  @HttpCode(200)
  async setScheduleState(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<JobAnswer> {
    assertKnownQueryParameters(query, []);
    const { schedule_state } = parseBody(scheduleStateBody, body);
    return presentJob(await this.settings.setScheduleState(tenant.tenantId, jobId, schedule_state));
  }
}

function isWrapped(body: unknown): boolean {
  return body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 1 && 'schedule' in body;
}
