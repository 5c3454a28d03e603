import { Injectable } from '@nestjs/common';
import { ChargeBuffer } from '@trawl/billing';
import { LimitsService } from '../limits/limits.service';
import { creditsLeft } from '../tenants/account';
import { AccountsService } from '../tenants/accounts.service';

/** What a tenant needs to plan its use (spec §2 "Subscription details"; docs/decisions/fetch-api.md, "Usage endpoint"). */
export interface SubscriptionDetails {
  /** Credits used of the period's allowance, in percent (0–100, two decimals). */
  usage_percent: number;
  period_started_at: string;
  period_ends_at: string;
  credits_total: number;
  credits_used: number;
  credits_left: number;
  concurrency_limit: number;
  concurrency_in_use: number;
  concurrency_remaining: number;
  rate_limit_per_minute: number;
  subscription_status: string;
  features: string[];
  products: string[];
  active_jobs: number;
  max_active_jobs: number;
}

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
    const [inUse, activeJobs] = await Promise.all([
      this.limits.inUse(tenantId, account.concurrency),
      this.accounts.activeJobs(tenantId),
    ]);
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
