import type { Account } from './account';

/** An account in good standing for unit tests: active, verified, the fetch product, credits to spare. */
export function testAccount(fields: Partial<Account> = {}): Account {
  return {
    tenantId: '3f0c2a5e-8d1b-4c7e-9a6f-1b2c3d4e5f60',
    name: 't',
    creditsLimit: 100,
    creditsUsed: 0,
    periodStartedAt: new Date(),
    periodEndsAt: new Date(Date.now() + 86_400_000),
    periodDays: 30,
    concurrency: 3,
    maxActiveJobs: 3,
    extractDomainsPerPeriod: 10,
    features: ['js_render', 'premium_proxy'],
    products: ['fetch'],
    subscriptionStatus: 'active',
    suspendedAt: null,
    emailVerified: true,
    rateLimitPerMinute: 100,
    captchaSolver: null,
    ...fields,
  };
}
