import { Injectable } from '@nestjs/common';
import { planProductOfLedger } from '@trawl/billing';
import { PLAN_PRODUCTS } from '@trawl/contracts';
import { type SubscriptionDetails } from '@trawl/contracts/http';
import { UsageService } from '../usage/usage.service';
import { TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

/** A tenant's usage as the operator reads it: what the tenant sees, and its period's ledger by product. */
export interface TenantUsage extends SubscriptionDetails {
  tenant_id: string;
  /** Billed units (ledger rows: a Fetch request, a crawl page, a batch task) of the period, by product. */
  requests_by_product: Record<string, number>;
  /** Credits of the period, by product. */
  credits_by_product: Record<string, number>;
}

@Injectable()
export class TenantUsageService {
  constructor(
    private readonly tenants: TenantsService,
    private readonly tenantRows: TenantsRepository,
    private readonly usage: UsageService,
  ) {}

  /** @throws TenantError `tenant_not_found`. */
  async usageOf(tenantId: string): Promise<TenantUsage> {
    await this.tenants.find(tenantId);
    // The tenant's own figures (`GET /v1/subscriptions/self/details`), its period renewed and this replica's charges written.
    const details = await this.usage.details(tenantId);
    const byProduct = await this.tenantRows.productUsage(tenantId, new Date(details.period_started_at));
    const requests: Record<string, number> = Object.fromEntries(PLAN_PRODUCTS.map((product) => [product, 0]));
    const credits: Record<string, number> = { ...requests };
    for (const row of byProduct) {
      // The ledger names what was bought (`crawl_page`); the operator reads plan products (`crawl`).
      const product = planProductOfLedger(row.product) ?? row.product;
      requests[product] = (requests[product] ?? 0) + row.requests;
      credits[product] = (credits[product] ?? 0) + row.credits;
    }
    return { tenant_id: tenantId, ...details, requests_by_product: requests, credits_by_product: credits };
  }
}
