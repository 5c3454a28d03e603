import type { PlanFeature, PlanProduct, SubscriptionStatus } from '@trawl/contracts';
import type { StoredSolverKey } from '@trawl/webhooks';

/** A tenant's account as the limits and the usage endpoint read it. */
export interface Account {
  tenantId: string;
  name: string;
  /** Credits of one billing period. */
  creditsLimit: number;
  /** Credits billed in the current period. */
  creditsUsed: number;
  periodStartedAt: Date;
  periodEndsAt: Date;
  /** Length of a billing period, in days. */
  periodDays: number;
  /** Concurrent Fetch requests. */
  concurrency: number;
  maxActiveJobs: number;
  /** New domains the tenant may ask Extract to prepare per billing period. */
  extractDomainsPerPeriod: number;
  features: PlanFeature[];
  products: PlanProduct[];
  subscriptionStatus: SubscriptionStatus;
  /**
   * When the operator suspended the tenant (`POST /admin/v1/tenants/{id}/suspend`), or `null`. A
   * suspended tenant is refused `AUTH011` on every route, whatever its subscription says.
   */
  suspendedAt: Date | null;
  emailVerified: boolean;
  rateLimitPerMinute: number;
  /**
   * The tenant's CAPTCHA solver; `key` as stored (sealed, or plaintext from before sealing), opened
   * only to build a worker request (never logged, never answered).
   */
  captchaSolver: { endpoint: string; key: StoredSolverKey } | null;
}

/** Credits still available in the period (never negative). */
export function creditsLeft(account: Pick<Account, 'creditsLimit' | 'creditsUsed'>): number {
  return Math.max(0, account.creditsLimit - account.creditsUsed);
}
