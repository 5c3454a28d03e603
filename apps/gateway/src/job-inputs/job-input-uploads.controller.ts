import { Controller, HttpCode, Inject, Param, Put, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { queryParameterNames, signedUrlQuery, type UploadedJobInputAnswer } from '@trawl/contracts/http';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { assertKnownQueryParameters, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { discardRest } from './csv-upload-body';
import { presentUploadedJobInput } from './job-input.presenter';
import { JobInputError, JobInputErrorCode } from './job-inputs.errors';
import { JobInputsService } from './job-inputs.service';

/**
 * `PUT` of a CSV input's file to its signed upload URL. Outside `/v1`: the URL's signature is the
 * credential, as with presigned URLs, so no API key is asked for.
 */
@Controller('uploads/job_inputs')
export class JobInputUploadsController {
  constructor(
    private readonly inputs: JobInputsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Put(':inputId')
  @HttpCode(200)
  async upload(
    @Param('inputId') inputId: string,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ): Promise<UploadedJobInputAnswer> {
    const body = request.body;
    try {
      assertKnownQueryParameters(query, queryParameterNames(signedUrlQuery));
      if (!(body instanceof Readable)) {
        throw new JobInputError(JobInputErrorCode.UploadNotCsv, 'Send the file with `Content-Type: text/csv`, as `upload.headers` says.');
      }
      const signed = { expires: singleQueryValue(query, 'expires'), signature: singleQueryValue(query, 'signature') };
      const { input, rows } = await this.inputs.receiveUpload(inputId, signed, body, contentLength(request));
      return presentUploadedJobInput(input, rows);
    } finally {
      // Whatever was refused: drop the rest of the body, up to a bound, then close the connection.
      if (body instanceof Readable && !body.readableEnded) {
        discardRest(body, this.config.CSV_UPLOAD_DRAIN_MAX_BYTES, () => request.raw.socket.destroy());
      }
    }
  }
}

function contentLength(request: FastifyRequest): number | undefined {
  const header = request.headers['content-length'];
  return header !== undefined && /^\d+$/.test(header) ? Number(header) : undefined;
}
