import { Body, Controller, Get, Head, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createExportBody, type JobExportAnswer } from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { publicOrigin } from '../job-inputs/public-origin';
import { assertNoBody, parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { ExportDownload } from './export-download';
import { ExportRecord } from './job-exports.repository';
import { exportPath, JobExportsService } from './job-exports.service';

/**
 * Bulk export of a run's results (spec-batch-api §8). Authenticated by the API key hook; the
 * signed download URL it hands out is served by `JobExportDownloadsController`.
 */
@Controller('v1/jobs/:jobId/exports')
export class JobExportsController {
  constructor(
    private readonly exportsService: JobExportsService,
    private readonly download: ExportDownload,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ): Promise<JobExportAnswer> {
    assertKnownQueryParameters(query, []);
    const parsed = parseBody(createExportBody, body ?? {});
    const created = await this.exportsService.create(tenant.tenantId, jobId, parsed.run_id ?? undefined);
    return this.present(created, publicOrigin(this.config, request));
  }

  // Declared before GET, so that Fastify does not add its own HEAD route, which would build the whole archive.
  @Head(':exportId')
  async head(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('exportId') exportId: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    await this.download.send(reply, await this.exportsService.open(tenant.tenantId, jobId, exportId), 'HEAD');
  }

  @Get(':exportId')
  async get(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('exportId') exportId: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    await this.download.send(reply, await this.exportsService.open(tenant.tenantId, jobId, exportId), 'GET');
  }

  private present(exported: ExportRecord, origin: string): JobExportAnswer {
    return presentExport(exported, origin, this.exportsService.signedDownloadPath(exported));
  }
}

/**
 * A run's exports with the run in the path, as the public Node SDK asks for them: `POST` makes one
 * (the same as `POST /v1/jobs/{id}/exports` with `run_id`), `GET` answers an export as JSON, where
 * the job-level `GET` downloads its archive.
 */
@Controller('v1/jobs/:jobId/runs/:runId/exports')
export class RunExportsController {
  constructor(
    private readonly exportsService: JobExportsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ): Promise<JobExportAnswer> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    const created = await this.exportsService.create(tenant.tenantId, jobId, runId);
    return presentExport(created, publicOrigin(this.config, request), this.exportsService.signedDownloadPath(created));
  }

  @Get(':exportId')
  async read(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Param('exportId') exportId: string,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ): Promise<JobExportAnswer> {
    assertKnownQueryParameters(query, []);
    const exported = await this.exportsService.open(tenant.tenantId, jobId, exportId, runId);
    return presentExport(exported, publicOrigin(this.config, request), this.exportsService.signedDownloadPath(exported));
  }
}

/**
 * `url` downloads with the API key (kept for clients that use it); `download.url` is the same
 * archive by a signed URL that needs no key, valid until `download.expires_at` (the export's own
 * expiry), shaped like a CSV input's `upload`; `download_url` repeats it for the public Node SDK.
 */
function presentExport(exported: ExportRecord, origin: string, signedPath: string): JobExportAnswer {
  const signedUrl = `${origin}${signedPath}`;
  return {
    export_id: exported.id,
    job_id: exported.jobId,
    run_id: exported.runId,
    format: exported.format,
    status: 'completed',
    url: `${origin}${exportPath(exported.jobId, exported.id)}`,
    download_url: signedUrl,
    created_at: exported.createdAt.toISOString(),
    expires_at: exported.expiresAt.toISOString(),
    download: { url: signedUrl, method: 'GET', expires_at: exported.expiresAt.toISOString() },
  };
}
