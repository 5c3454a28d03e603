import { Body, Controller, Delete, Get, Headers, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CHANGE_STATUSES, JOB_STATUSES, JOB_TYPES } from '@trawl/contracts';
import {
  addTasksBodyShallow,
  createJobBodyShallow,
  type JobAnswer,
  type JobListAnswer,
  jobListQuery,
  type JobWithAddedTasksAnswer,
  LIST_PAGE_LIMITS,
  queryParameterNames,
  RESULTS_PAGE_SIZE,
  taskResultsQuery,
  type TaskResultsPageAnswer,
} from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { assertNoBody, parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, intQueryParameter, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { RequestError, RequestErrorCode } from '../problems/request.errors';
import { BatchError, BatchErrorCode } from './batch.errors';
import { jobListCursor } from './job-cursors';
import { JobResultsService } from './job-results.service';
import { presentJob, presentResult, presentRun } from './job.presenter';
import { JobListFilter } from './jobs.repository';
import { JobsService } from './jobs.service';
import { jobBodyWithSpecParamName } from './param-synonyms';
import { JobDeletionService } from './job-deletion.service';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { publicOrigin } from '../job-inputs/public-origin';
import { TaskContentService } from './task-content.service';

/** Jobs of the Batch API (spec-batch-api §4): create, list, read, results, add tasks, close. */
@Controller('v1/jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly results: JobResultsService,
    private readonly deletion: JobDeletionService,
    private readonly contents: TaskContentService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  /** `201` under 10,000 tasks, `202` from 10,000 (the rows are still being written). */
  @Post()
  async create(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @Headers('idempotency-key') idempotencyHeader: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<JobAnswer> {
    assertKnownQueryParameters(query, []);
    const idempotencyKey = IdempotencyService.keyFromHeader(idempotencyHeader);
    const request = await this.jobs.refusalOrKeyConflict(tenant.tenantId, idempotencyKey, () =>
      parseBody(createJobBodyShallow, jobBodyWithSpecParamName(body)),
    );
    const { job, synchronous } = await this.jobs.create(tenant.tenantId, request, idempotencyKey);
    void reply.status(synchronous ? 201 : 202).header('location', `/v1/jobs/${job.id}`);
    return presentJob(job);
  }

  @Get()
  async list(@AuthenticatedTenant() tenant: TenantContext, @Query() query: QueryParameters): Promise<JobListAnswer> {
    assertKnownQueryParameters(query, queryParameterNames(jobListQuery));
    const limit = intQueryParameter(query, 'limit', LIST_PAGE_LIMITS);
    const filter: JobListFilter = {
      status: enumParameter(query, 'status', JOB_STATUSES),
      type: enumParameter(query, 'type', JOB_TYPES),
    };
    const token = singleQueryValue(query, 'cursor') || undefined;
    const cursor = token === undefined ? undefined : jobListCursor.decode(token);
    if (token !== undefined && !cursor) {
      throw new BatchError(
        BatchErrorCode.InvalidJobsCursor,
        'This cursor was not handed out for the job list; use the `next_cursor` you received.',
      );
    }
    const rows = await this.jobs.list(
      tenant.tenantId,
      filter,
      cursor && { createdAtMicros: cursor.createdAtMicros, id: cursor.jobId },
      limit + 1,
    );
    const jobs = rows.slice(0, limit);
    const last = jobs.at(-1);
    return {
      jobs: jobs.map(presentJob),
      next_cursor: rows.length > limit && last ? jobListCursor.encode({ createdAtMicros: last.createdAtMicros, jobId: last.id }) : null,
    };
  }

  /** `204`: the job and everything of it are gone; `409 run_in_flight` while a run is. */
  @Delete(':jobId')
  @HttpCode(204)
  async delete(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    await this.deletion.deleteJob(tenant.tenantId, jobId);
  }

  @Get(':jobId')
  async read(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Query() query: QueryParameters,
  ): Promise<JobAnswer> {
    assertKnownQueryParameters(query, []);
    return presentJob(await this.jobs.get(tenant.tenantId, jobId));
  }

  /** One page of a run's results; `status=successful` keeps successful tasks, `run_id` picks the run. */
  @Get(':jobId/results')
  readResults(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ) {
    assertKnownQueryParameters(query, queryParameterNames(taskResultsQuery));
    return this.resultsPage(tenant, jobId, singleQueryValue(query, 'run_id') || undefined, query, request);
  }

  /** The same page of one run's results, the run named in the path (as the public Node SDK asks). */
  @Get(':jobId/runs/:runId/results')
  readRunResults(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ) {
    assertKnownQueryParameters(
      query,
      queryParameterNames(taskResultsQuery).filter((name) => name !== 'run_id'),
    );
    return this.resultsPage(tenant, jobId, runId, query, request);
  }

  private async resultsPage(
    tenant: TenantContext,
    jobId: string,
    runId: string | undefined,
    query: QueryParameters,
    request: FastifyRequest,
  ): Promise<TaskResultsPageAnswer> {
    const status = enumParameter(query, 'status', ['successful'] as const);
    const changeStatuses = enumListParameter(query, 'change_status', CHANGE_STATUSES);
    const limit = intQueryParameter(query, 'limit', { min: 1, max: RESULTS_PAGE_SIZE, fallback: RESULTS_PAGE_SIZE });
    const page = await this.results.page(tenant.tenantId, jobId, {
      runId,
      cursor: singleQueryValue(query, 'cursor') || undefined,
      successfulOnly: status === 'successful',
      ...(changeStatuses && { changeStatuses }),
      limit,
    });
    const { run } = page;
    const origin = publicOrigin(this.config, request);
    const now = new Date();
    return {
      job_id: page.job.id,
      ...(run && { run: presentRun(run) }),
      results: run
        ? page.results.map((result) => presentResult(result, run.id, this.contents.resultUrl(origin, tenant.tenantId, run.id, result, now)))
        : [],
      next_cursor: page.nextCursor,
    };
  }

  /** Adds up to 10,000 tasks to an open job; `last_batch: true` closes it. Answers the job. */
  @Post(':jobId/tasks')
  @HttpCode(200)
  async addTasks(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<JobWithAddedTasksAnswer> {
    assertKnownQueryParameters(query, []);
    const request = parseBody(addTasksBodyShallow, body);
    const job = await this.jobs.addTasks(tenant.tenantId, jobId, request.tasks, request.last_batch);
    return { ...presentJob(job), tasks_added: request.tasks.length, accepted_tasks: request.tasks.length, job_status: job.status };
  }

  @Post(':jobId/close')
  @HttpCode(200)
  async close(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<JobAnswer> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    return presentJob(await this.jobs.close(tenant.tenantId, jobId));
  }
}

/** A query parameter that takes one of `values`, or `undefined` when absent (400 `invalid_request` otherwise). */
export function enumParameter<const T extends string>(query: QueryParameters, name: string, values: readonly T[]): T | undefined {
  const raw = singleQueryValue(query, name);
  if (raw === undefined || raw === '') return undefined;
  if (!(values as readonly string[]).includes(raw)) {
    throw new RequestError(RequestErrorCode.InvalidRequest, `\`${name}\` must be one of: ${values.join(', ')}.`, { parameter: name });
  }
  return raw as T;
}

/** A comma-separated list of `values` (each at most once), or `undefined` when absent (400 `invalid_request` otherwise). */
export function enumListParameter<const T extends string>(query: QueryParameters, name: string, values: readonly T[]): T[] | undefined {
  const raw = singleQueryValue(query, name);
  if (raw === undefined || raw === '') return undefined;
  const items = raw.split(',').map((item) => item.trim());
  if (!items.every((item) => (values as readonly string[]).includes(item))) {
    throw new RequestError(RequestErrorCode.InvalidRequest, `\`${name}\` takes a comma-separated list of: ${values.join(', ')}.`, {
      parameter: name,
    });
  }
  return [...new Set(items)] as T[];
}
