import { Body, Controller, Delete, Get, HttpCode, Put, Query } from '@nestjs/common';
import { captchaSolverBody, type CaptchaSolverView } from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { AccountsService } from './accounts.service';
import { TenantsService } from './tenants.service';

/**
 * The tenant's own CAPTCHA solver (`X-API-Key`): set or replace it with `PUT`, read it, remove it.
 * Fetch requests and batch tasks use it to get past challenges (`REQS006`/`RESP006`).
 */
@Controller('v1/subscriptions/self/captcha_solver')
export class CaptchaSolverController {
  constructor(
    private readonly tenants: TenantsService,
    private readonly accounts: AccountsService,
  ) {}

  @Get()
  async read(@AuthenticatedTenant() tenant: TenantContext, @Query() query: QueryParameters): Promise<CaptchaSolverView> {
    assertKnownQueryParameters(query, []);
    const account = await this.accounts.current(tenant.tenantId);
    return view(account.captchaSolver?.endpoint);
  }

  @Put()
  async set(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<CaptchaSolverView> {
    assertKnownQueryParameters(query, []);
    const solver = parseBody(captchaSolverBody, body ?? {});
    const updated = await this.tenants.setCaptchaSolver(tenant.tenantId, solver);
    return view(updated.captchaSolver?.endpoint);
  }

  @Delete()
  @HttpCode(204)
  async remove(@AuthenticatedTenant() tenant: TenantContext, @Query() query: QueryParameters): Promise<void> {
    assertKnownQueryParameters(query, []);
    await this.tenants.setCaptchaSolver(tenant.tenantId, null);
  }
}

function view(endpoint: string | undefined): CaptchaSolverView {
  return { captcha_solver: endpoint ? { endpoint, key_configured: true } : null };
}
