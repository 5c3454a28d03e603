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
 * Bulk export of a run's results (spec-batch-api §8), by job (`run_id` in the body) or by run in
 * the path, as the public Node SDK asks: the run-scoped `GET` answers the export as JSON, where the
 * job-level `GET` downloads its archive. Authenticated by the API key hook; the signed download
 * URL it hands out is served by `JobExportDownloadsController`.
 */
@Controller('v1/jobs/:jobId')
export class JobExportsController {
  constructor(
    private readonly exportsService: JobExportsService,
    private readonly download: ExportDownload,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post('exports')
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
    return this.present(await this.exportsService.create(tenant.tenantId, jobId, parsed.run_id ?? undefined), request);
  }

  /** The same as `POST exports` with `run_id`; no body. */
  @Post('runs/:runId/exports')
  @HttpCode(201)
  async createForRun(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ): Promise<JobExportAnswer> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    return this.present(await this.exportsService.create(tenant.tenantId, jobId, runId), request);
  }

  @Get('runs/:runId/exports/:exportId')
  async readForRun(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('runId') runId: string,
    @Param('exportId') exportId: string,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ): Promise<JobExportAnswer> {
    assertKnownQueryParameters(query, []);
    return this.present(await this.exportsService.open(tenant.tenantId, jobId, exportId, runId), request);
  }

  // Declared before GET, so that Fastify does not add its own HEAD route, which would build the whole archive.
  @Head('exports/:exportId')
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

  @Get('exports/:exportId')
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

  /**
   * `url` downloads with the API key (kept for clients that use it); `download.url` is the same
   * archive by a signed URL that needs no key, valid until `download.expires_at` (the export's own
   * expiry), shaped like a CSV input's `upload`; `download_url` repeats it for the public Node SDK.
   * An export is made when it is asked for: it is `completed` at once.
   */
  private present(exported: ExportRecord, request: FastifyRequest): JobExportAnswer {
    const origin = publicOrigin(this.config, request);
    const signedUrl = `${origin}${this.exportsService.signedDownloadPath(exported)}`;
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
}
