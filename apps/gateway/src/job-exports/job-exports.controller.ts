import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { createGzip } from 'node:zlib';
import { z } from 'zod';
import type { Logger } from '@trawl/observability';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG, LOGGER } from '../gateway.tokens';
import { publicOrigin } from '../job-inputs/public-origin';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { FileTransferSlots } from '../file-transfers/file-transfer-slots';
import { ExportRecord } from './job-exports.repository';
import { exportPath, JobExportsService } from './job-exports.service';

/** Body of `POST /v1/jobs/{job_id}/exports`; an empty body exports the latest run. */
const createExportBody = z.strictObject({ run_id: z.string().nullish() });

/** Bulk export of a run's results (spec-batch-api §8). Authenticated by the API key hook. */
@Controller('v1/jobs/:jobId/exports')
export class JobExportsController {
  constructor(
    private readonly exportsService: JobExportsService,
    private readonly transfers: FileTransferSlots,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ) {
    assertKnownQueryParameters(query, []);
    const parsed = parseBody(createExportBody, body ?? {});
    const created = await this.exportsService.create(tenant.tenantId, jobId, parsed.run_id ?? undefined);
    return presentExport(created, publicOrigin(this.config, request));
  }

  @Get(':exportId')
  async download(
    @AuthenticatedTenant() tenant: TenantContext,
    @Param('jobId') jobId: string,
    @Param('exportId') exportId: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    const exported = await this.exportsService.open(tenant.tenantId, jobId, exportId);
    // Before the status line: a refusal must still be a problem, not a cut archive.
    const release = this.transfers.take();
    const gzip = createGzip();
    // The slot is the archive's database connection: given back when the snapshot ends, not when the socket does.
    this.exportsService.writeArchive(exported, gzip).finally(release).then(
      () => gzip.end(),
      (error: unknown) => {
        // The status line has left: the client sees a cut archive; the reason is only in the logs.
        if (!gzip.destroyed) this.logger.error({ err: error, export_id: exported.id }, 'export failed mid-stream');
        gzip.destroy(error instanceof Error ? error : new Error(String(error)));
      },
    );
    await reply
      .status(200)
      .headers({
        'content-type': 'application/gzip',
        'content-disposition': `attachment; filename="${exported.id}.tar.gz"`,
        'cache-control': 'private, no-store',
      })
      .send(gzip);
  }
}

function presentExport(exported: ExportRecord, origin: string) {
  return {
    export_id: exported.id,
    job_id: exported.jobId,
    run_id: exported.runId,
    format: exported.format,
    url: `${origin}${exportPath(exported.jobId, exported.id)}`,
    expires_at: exported.expiresAt.toISOString(),
  };
}
