import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { queryParameterNames, signedUrlQuery, type TaskHistoryAnswer } from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { assertKnownQueryParameters, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { TaskContent, TaskContentService } from './task-content.service';
import { TaskHistoryService } from './task-history.service';

/** A task's content and attempts by the API key: in the job's latest run, or in a given run. */
@Controller('v1/jobs/:jobId')
export class TaskContentController {
  constructor(
    private readonly contents: TaskContentService,
    private readonly histories: TaskHistoryService,
  ) {}

  @Get('tasks/:taskId/history')
  latestHistory(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('taskId') taskId: string,
    @Query() query: QueryParameters,
  ): Promise<TaskHistoryAnswer> {
    assertKnownQueryParameters(query, []);
    return this.histories.history(tenant.tenantId, jobId, undefined, taskId);
  }

  @Get('runs/:runId/tasks/:taskId/history')
  runHistory(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Param('taskId') taskId: string,
    @Query() query: QueryParameters,
  ): Promise<TaskHistoryAnswer> {
    assertKnownQueryParameters(query, []);
    return this.histories.history(tenant.tenantId, jobId, runId, taskId);
  }

  @Get('tasks/:taskId/content')
  async latest(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('taskId') taskId: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    await sendContent(reply, await this.contents.content(tenant.tenantId, jobId, undefined, taskId));
  }

  @Get('runs/:runId/tasks/:taskId/content')
  async ofRun(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Param('taskId') taskId: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    await sendContent(reply, await this.contents.content(tenant.tenantId, jobId, runId, taskId));
  }
}

/** A result's `result_url`: outside `/v1`, its signature is the credential (no API key). */
@Controller('downloads/task_contents')
export class SignedTaskContentController {
  constructor(private readonly contents: TaskContentService) {}

  @Get(':tenantId/:runId/:taskId')
  async get(
    @Param('tenantId') tenantId: string,
    @Param('runId') runId: string,
    @Param('taskId') taskId: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertKnownQueryParameters(query, queryParameterNames(signedUrlQuery), { apiKeyParameter: false });
    const signed = { expires: singleQueryValue(query, 'expires'), signature: singleQueryValue(query, 'signature') };
    await sendContent(reply, await this.contents.signedContent(tenantId, runId, taskId, signed));
  }
}

async function sendContent(reply: FastifyReply, content: TaskContent): Promise<void> {
  await reply.status(200).headers({ 'content-type': content.contentType, 'cache-control': 'private, no-store' }).send(content.body);
}
