import { Controller, Get, Query } from '@nestjs/common';
import type { SubscriptionDetails } from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { UsageService } from './usage.service';

/** `GET /v1/subscriptions/self/details` (spec §4): real-time usage; takes no concurrency slot. */
@Controller('v1/subscriptions/self')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  @Get('details')
  async details(@AuthenticatedTenant() tenant: TenantContext, @Query() query: QueryParameters): Promise<SubscriptionDetails> {
    assertKnownQueryParameters(query, []);
    return this.usage.details(tenant.tenantId);
  }
}
