import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { AdminFingerprint, AdminTokenGuard } from '../auth/admin-token.guard';
import { assertNoBody, parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, intQueryParameter, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { decodeCreatedCursor, encodeCreatedCursor } from './admin-cursors';
import { presentTenant } from './tenant.presenter';
import { TenantUsageService } from './tenant-usage.service';
import { createTenantBody, updateTenantBody } from '@trawl/contracts/http';
import { TenantsService } from './tenants.service';
import { LimitsService } from '../limits/limits.service';

const ADMIN_QUERY = { apiKeyParameter: false };

/**
 * Admin API: tenants are created by the operator, who hands the API key to the customer, and
 * listed, read, changed, suspended and resumed by them. Every change is in `GET /admin/v1/audit`.
 */
@Controller('admin/v1/tenants')
@UseGuards(AdminTokenGuard)
export class TenantsController {
  constructor(
    private readonly tenants: TenantsService,
    private readonly usage: TenantUsageService,
    private readonly limits: LimitsService,
  ) {}

  /** Answers a change of the account once every replica's Fetch admissions see it (Allotments admit from what a statement read). */
  private async changed<T>(tenantId: string, record: T): Promise<T> {
    await this.limits.accountChanged(tenantId);
    return record;
  }

  @Post()
  @HttpCode(201)
  async create(@Body() body: unknown, @Query() query: QueryParameters, @AdminFingerprint() admin: string) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    // The body is optional: no body means every default.
    const request = parseBody(createTenantBody, body ?? {});
    const { tenant, apiKey } = await this.tenants.create(request, admin);
    return { ...presentTenant(tenant), api_key: apiKey };
  }

  /** Tenants, newest first: `{tenants, next_cursor}` (`next_cursor` absent on the last page). */
  @Get()
  async list(@Query() query: QueryParameters) {
    assertKnownQueryParameters(query, ['cursor', 'limit'], ADMIN_QUERY);
    const limit = intQueryParameter(query, 'limit', { min: 1, max: 100, fallback: 20 });
    const cursor = decodeCreatedCursor('tenants', singleQueryValue(query, 'cursor') || undefined);
    const page = await this.tenants.list(cursor, limit);
    const last = page.tenants.at(-1);
    return {
      tenants: page.tenants.map(presentTenant),
      ...(page.more &&
        last && { next_cursor: encodeCreatedCursor('tenants', { createdAtMicros: last.createdAtMicros, id: last.tenantId }) }),
    };
  }

  @Get(':tenantId')
  async read(@Param('tenantId') tenantId: string, @Query() query: QueryParameters) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    return presentTenant(await this.tenants.find(tenantId));
  }

  @Patch(':tenantId')
  async update(
    @Param('tenantId') tenantId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @AdminFingerprint() admin: string,
  ) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    const request = parseBody(updateTenantBody, body ?? {});
    return presentTenant(await this.changed(tenantId, await this.tenants.update(tenantId, request, admin)));
  }

  /** Every key of the tenant answers `AUTH011` on every route, proxy mode included, until resumed. */
  @Post(':tenantId/suspend')
  @HttpCode(200)
  async suspend(
    @Param('tenantId') tenantId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @AdminFingerprint() admin: string,
  ) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    assertNoBody(body);
    return presentTenant(await this.changed(tenantId, await this.tenants.setSuspended(tenantId, true, admin)));
  }

  @Post(':tenantId/resume')
  @HttpCode(200)
  async resume(
    @Param('tenantId') tenantId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @AdminFingerprint() admin: string,
  ) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    assertNoBody(body);
    return presentTenant(await this.changed(tenantId, await this.tenants.setSuspended(tenantId, false, admin)));
  }

  /** The tenant's `GET /v1/subscriptions/self/details`, with the period's requests and credits by product. */
  @Get(':tenantId/usage')
  async readUsage(@Param('tenantId') tenantId: string, @Query() query: QueryParameters) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    return this.usage.usageOf(tenantId);
  }
}
