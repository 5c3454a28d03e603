import { Controller, Get, Head, Param, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { queryParameterNames, signedUrlQuery } from '@trawl/contracts/http';
import { assertKnownQueryParameters, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { ExportDownload } from './export-download';
import { JobExportsService } from './job-exports.service';

/**
 * `GET` (and `HEAD`) of an export at its signed download URL, for `curl -O`, `wget` and browsers.
 * Outside `/v1`: the URL's signature is the credential, as with presigned URLs, so no API key is
 * asked for. `HEAD` is checked as `GET` (the same request without the body, RFC 9110 §9.3.2).
 */
@Controller('downloads/job_exports')
export class JobExportDownloadsController {
  constructor(
    private readonly exportsService: JobExportsService,
    private readonly download: ExportDownload,
  ) {}

  // Declared before GET, so that Fastify does not add its own HEAD route, which would build the whole archive.
  @Head(':tenantId/:fileName')
  async head(
    @Param('tenantId') tenantId: string,
    @Param('fileName') fileName: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ) {
    await this.serve(tenantId, fileName, query, reply, 'HEAD');
  }

  @Get(':tenantId/:fileName')
  async get(
    @Param('tenantId') tenantId: string,
    @Param('fileName') fileName: string,
    @Query() query: QueryParameters,
    @Res() reply: FastifyReply,
  ) {
    await this.serve(tenantId, fileName, query, reply, 'GET');
  }

  private async serve(
    tenantId: string,
    fileName: string,
    query: QueryParameters,
    reply: FastifyReply,
    method: 'GET' | 'HEAD',
  ): Promise<void> {
    assertKnownQueryParameters(query, queryParameterNames(signedUrlQuery), { apiKeyParameter: false });
    const signed = { expires: singleQueryValue(query, 'expires'), signature: singleQueryValue(query, 'signature') };
    const exported = await this.exportsService.openSigned(tenantId, fileName, signed);
    await this.download.send(reply, exported, method);
  }
}
