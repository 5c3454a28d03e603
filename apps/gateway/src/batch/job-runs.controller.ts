import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import {
  type JobCostEstimateAnswer,
  type JobRunAnswer,
  LIST_PAGE_LIMITS,
  pageQuery,
  queryParameterNames,
  RERUN_STATUSES,
  rerunQuery,
  retryFailedBody,
  type RunCostAnswer,
  type RunListAnswer,
  type StartedRunAnswer,
} from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { assertNoBody, parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, intQueryParameter, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { costOfCredits, costOfLedger } from './credit-cost';
import { JobCostsService } from './job-costs.service';
import { RunTransition } from './job-runs.repository';
import { JobRunsService } from './job-runs.service';
import { presentRun } from './job.presenter';
import { JobDeletionService } from './job-deletion.service';
import { enumParameter } from './jobs.controller';
import type { RunRecord } from './jobs.repository';

/**
 * Runs of a job (spec-batch-api §3, §4): list and read them, steer the run in flight, start a
 * rerun or a retry of the failed tasks, and price them.
 */
@Controller('v1/jobs/:jobId')
export class JobRunsController {
  /** `FETCH_CREDIT_PRICE_USD`, for prices not yet billed (an estimate) and ledger rows billed before it kept prices. */
  private readonly creditPrice: number;

  constructor(
    private readonly runs: JobRunsService,
    private readonly costs: JobCostsService,
    private readonly deletion: JobDeletionService,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.creditPrice = config.FETCH_CREDIT_PRICE_USD;
  }

  @Get('runs')
  async list(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Query() query: QueryParameters,
  ): Promise<RunListAnswer> {
    assertKnownQueryParameters(query, queryParameterNames(pageQuery));
    const limit = intQueryParameter(query, 'limit', LIST_PAGE_LIMITS);
    const page = await this.runs.list(tenant.tenantId, jobId, singleQueryValue(query, 'cursor') || undefined, limit);
    return { runs: page.runs.map(presentRun), next_cursor: page.nextCursor ?? null };
  }

  @Get('runs/:runId')
  async read(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Query() query: QueryParameters,
  ): Promise<JobRunAnswer> {
    assertKnownQueryParameters(query, []);
    return presentRun(await this.runs.get(tenant.tenantId, jobId, runId));
  }

  /** `204`: the run's results and exports are gone, the run stays listed as `deleted`; `409 run_in_flight` until it ends. */
  @Delete('runs/:runId')
  @HttpCode(204)
  async delete(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    await this.deletion.deleteRun(tenant.tenantId, jobId, runId);
  }

  @Post('stop')
  @HttpCode(200)
  stop(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ) {
    return this.transition(tenant, jobId, 'stop', body, query);
  }

  /** Alias of stop (spec-batch-api §4). */
  @Post('cancel')
  @HttpCode(200)
  cancel(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ) {
    return this.transition(tenant, jobId, 'stop', body, query);
  }

  @Post('pause')
  @HttpCode(200)
  pause(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ) {
    return this.transition(tenant, jobId, 'pause', body, query);
  }

  @Post('resume')
  @HttpCode(200)
  resume(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ) {
    return this.transition(tenant, jobId, 'resume', body, query);
  }

  /**
   * A new run replaying every task; `201` with the run. `status=failed` (`failed,pending`) makes it
   * a retry of the failed tasks (and the never-finished ones), the public Node SDK's way of asking.
   */
  @Post('rerun')
  async rerun(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<StartedRunAnswer> {
    assertKnownQueryParameters(query, queryParameterNames(rerunQuery));
    assertNoBody(body);
    const status = enumParameter(query, 'status', RERUN_STATUSES);
    const run =
      status === undefined
        ? await this.runs.rerun(tenant.tenantId, jobId)
        : await this.runs.retryFailed(tenant.tenantId, jobId, status === 'failed,pending');
    return presentStartedRun(jobId, run);
  }

  /** A new run of the latest run's failed tasks (`include_not_started`: and those it never finished); `201`. */
  @Post('retry-failed')
  async retryFailed(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<StartedRunAnswer> {
    assertKnownQueryParameters(query, []);
    const request = parseBody(retryFailedBody, body ?? {});
    return presentStartedRun(jobId, await this.runs.retryFailed(tenant.tenantId, jobId, request.include_not_started));
  }

  /** Credits (and cost) a run of the job's tasks would take: a range when `mode=auto` picks tiers. */
  @Get('cost-estimate')
  async estimate(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Query() query: QueryParameters,
  ): Promise<JobCostEstimateAnswer> {
    assertKnownQueryParameters(query, []);
    const estimate = await this.costs.estimate(tenant.tenantId, jobId);
    const price = this.creditPrice;
    return {
      job_id: jobId,
      tasks: estimate.tasks,
      credits: { min: estimate.min, max: estimate.max },
      cost: { min: costOfCredits(estimate.min, price), max: costOfCredits(estimate.max, price) },
      tasks_by_tier: estimate.tasksByTier,
    };
  }

  /** Credits the ledger holds for one run, by tier, and their cost. */
  @Get('runs/:runId/cost')
  async actual(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Query() query: QueryParameters,
  ): Promise<RunCostAnswer> {
    assertKnownQueryParameters(query, []);
    const actual = await this.costs.actual(tenant.tenantId, jobId, runId);
    const price = this.creditPrice;
    return {
      job_id: jobId,
      run_id: actual.run.id,
      run_status: actual.run.status,
      credits: actual.credits,
      cost: costOfLedger(actual, price),
      by_tier: actual.byTier.map((tier) => ({
        tier: tier.tier,
        tasks: tier.tasks,
        credits: tier.credits,
        cost: costOfLedger(tier, price),
      })),
    };
  }

  private async transition(
    tenant: TenantContext,
    jobId: string,
    transition: RunTransition,
    body: unknown,
    query: QueryParameters,
  ): Promise<JobRunAnswer> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    return presentRun(await this.runs.transition(tenant.tenantId, jobId, transition));
  }
}

/** A run just made: carried-over results are its successful tasks at creation, the rest run again. */
function presentStartedRun(jobId: string, run: RunRecord): StartedRunAnswer {
  const presented = presentRun(run);
  return { ...presented, job_id: jobId, latest_run: presented, retried_tasks: run.total - run.successful, inherited_tasks: run.successful };
}
