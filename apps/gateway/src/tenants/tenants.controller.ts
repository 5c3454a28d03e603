import { Body, Controller, HttpCode, Post, Query, UseGuards } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { createTenantBody } from './tenants.schemas';
import { TenantsService } from './tenants.service';

/** Admin API: tenants are created by the operator, who hands the API key to the customer. */
@Controller('admin/v1/tenants')
@UseGuards(AdminTokenGuard)
export class TenantsController {
  constructor(private readonly tenants: TenantsService) {}

  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @Query() query: QueryParameters) {
    assertKnownQueryParameters(query, [], { apiKeyParameter: false });
    // The body is optional: no body means every default.
    const request = parseBody(createTenantBody, body ?? {});
    const { tenant, apiKey } = await this.tenants.create(request);
    return {
      tenant_id: tenant.tenantId,
      api_key: apiKey,
      name: tenant.name,
      credits: tenant.creditsLimit,
      concurrency: tenant.concurrency,
      max_active_jobs: tenant.maxActiveJobs,
      period_ends_at: tenant.periodEndsAt.toISOString(),
    };
  }
}
