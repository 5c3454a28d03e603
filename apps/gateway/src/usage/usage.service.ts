import { Injectable } from '@nestjs/common';
import { ChargeBuffer } from '@trawl/billing';
import type { SubscriptionDetails } from '@trawl/contracts/http';
import { LimitsService } from '../limits/limits.service';
import { creditsLeft } from '../tenants/account';
import { AccountsService } from '../tenants/accounts.service';

/** The answer of the usage endpoint (docs/decisions/fetch-api.md, "Usage endpoint"): its schema is in @trawl/contracts. */
@Injectable()
export class UsageService {
  constructor(
    private readonly accounts: AccountsService,
    private readonly limits: LimitsService,
    private readonly charges: ChargeBuffer,
  ) {}

  async details(tenantId: string): Promise<SubscriptionDetails> {
    // This replica's Fetch charges still buffered go in first; other replicas' are at most
    // FETCH_LEDGER_FLUSH_MS behind.
    await this.charges.flush();
    const account = await this.accounts.current(tenantId);
    const [inUse, activeJobs] = await Promise.all([this.limits.inUse(tenantId, account.concurrency), this.accounts.activeJobs(tenantId)]);
    const percent = account.creditsLimit === 0 ? 100 : (100 * account.creditsUsed) / account.creditsLimit;
    return {
      usage_percent: Math.min(100, Math.round(percent * 100) / 100),
      period_started_at: account.periodStartedAt.toISOString(),
      period_ends_at: account.periodEndsAt.toISOString(),
      credits_total: account.creditsLimit,
      credits_used: account.creditsUsed,
      credits_left: creditsLeft(account),
      concurrency_limit: account.concurrency,
      concurrency_in_use: inUse,
      concurrency_remaining: Math.max(0, account.concurrency - inUse),
      rate_limit_per_minute: account.rateLimitPerMinute,
      subscription_status: account.subscriptionStatus,
      features: account.features,
      products: account.products,
      active_jobs: activeJobs,
      max_active_jobs: account.maxActiveJobs,
    };
  }
}
