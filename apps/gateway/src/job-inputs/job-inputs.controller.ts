import { Body, Controller, HttpCode, Inject, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { createJobInputBody, type JobInputSlotAnswer } from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { presentCreatedJobInput } from './job-input.presenter';
import { JobInputsService } from './job-inputs.service';
import { publicOrigin } from './public-origin';

/** `POST /v1/job_inputs`: a CSV input slot (spec-batch-api §4). Authenticated by the API key hook. */
@Controller('v1/job_inputs')
export class JobInputsController {
  constructor(
    private readonly inputs: JobInputsService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {}

  @Post()
  @HttpCode(201)
  async create(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @Req() request: FastifyRequest,
  ): Promise<JobInputSlotAnswer> {
    assertKnownQueryParameters(query, []);
    const parsed = parseBody(createJobInputBody, body);
    return presentCreatedJobInput(await this.inputs.createSlot(tenant.tenantId, parsed, publicOrigin(this.config, request)));
  }
}
