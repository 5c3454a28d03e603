import { creditsLeft } from './account';
import type { TenantRecord } from './tenants.repository';

/** A tenant as the admin API answers it. The CAPTCHA solver's key is never shown. */
export function presentTenant(tenant: TenantRecord) {
  return {
    tenant_id: tenant.tenantId,
    name: tenant.name,
    credits: tenant.creditsLimit,
    credits_used: tenant.creditsUsed,
    credits_left: creditsLeft(tenant),
    concurrency: tenant.concurrency,
    max_active_jobs: tenant.maxActiveJobs,
    period_days: tenant.periodDays,
    period_started_at: tenant.periodStartedAt.toISOString(),
    period_ends_at: tenant.periodEndsAt.toISOString(),
    features: tenant.features,
    products: tenant.products,
    subscription_status: tenant.subscriptionStatus,
    email_verified: tenant.emailVerified,
    rate_limit_per_minute: tenant.rateLimitPerMinute,
    captcha_solver: tenant.captchaSolver ? { endpoint: tenant.captchaSolver.endpoint, key_configured: true } : null,
    api_key_expires_at: tenant.apiKeyExpiresAt?.toISOString() ?? null,
  };
}
