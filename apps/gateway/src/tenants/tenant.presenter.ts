import { creditsLeft } from './account';
import type { AdminAuditRecord } from './admin-audit.repository';
import type { TenantKeyRecord } from './tenant-keys.repository';
import type { TenantRecord } from './tenants.repository';

/** A tenant as the admin API answers it. The CAPTCHA solver's key is never shown. */
export function presentTenant(tenant: TenantRecord) {
  return {
    tenant_id: tenant.tenantId,
    name: tenant.name,
    created_at: tenant.createdAt.toISOString(),
    suspended_at: tenant.suspendedAt?.toISOString() ?? null,
    credits: tenant.creditsLimit,
    credits_used: tenant.creditsUsed,
    credits_left: creditsLeft(tenant),
    concurrency: tenant.concurrency,
    max_active_jobs: tenant.maxActiveJobs,
    extract_domains_per_period: tenant.extractDomainsPerPeriod,
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

/** An API key as the admin API answers it: its hint, never the key nor its hash. */
export function presentKey(key: TenantKeyRecord) {
  return {
    key_id: key.keyId,
    tenant_id: key.tenantId,
    name: key.name,
    hint: key.hint,
    created_at: key.createdAt.toISOString(),
    /** At most a minute behind the key's latest use. */
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    expires_at: key.expiresAt?.toISOString() ?? null,
    revoked_at: key.revokedAt?.toISOString() ?? null,
    rotated_at: key.rotatedAt?.toISOString() ?? null,
  };
}

export function presentAuditEntry(entry: AdminAuditRecord) {
  return {
    id: entry.id,
    action: entry.action,
    tenant_id: entry.tenantId,
    key_id: entry.apiKeyId,
    admin_fingerprint: entry.adminFingerprint,
    created_at: entry.createdAt.toISOString(),
    details: entry.details,
  };
}
