import { Body, Controller, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { AdminTokenGuard } from '../auth/admin-token.guard';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { presentTenant } from './tenant.presenter';
import { createTenantBody, updateTenantBody } from './tenants.schemas';
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
    return { ...presentTenant(tenant), api_key: apiKey };
  }

  @Patch(':tenantId')
  async update(@Param('tenantId') tenantId: string, @Body() body: unknown, @Query() query: QueryParameters) {
    assertKnownQueryParameters(query, [], { apiKeyParameter: false });
    const request = parseBody(updateTenantBody, body ?? {});
    return presentTenant(await this.tenants.update(tenantId, request));
  }
}
