import { Injectable } from '@nestjs/common';
import { apiKeyHint, generateApiKey, hashApiKey } from '../auth/api-key';
import { TenantError, TenantErrorCode } from './tenants.errors';
import { CreateTenantBody, TENANT_DEFAULTS, UpdateTenantBody } from './tenants.schemas';
import { TenantRecord, TenantSettings, TenantsRepository } from './tenants.repository';

/** A new tenant with its API key: the only time the key is ever shown. */
export interface CreatedTenant {
  tenant: TenantRecord;
  apiKey: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

@Injectable()
export class TenantsService {
  constructor(private readonly tenants: TenantsRepository) {}

  async create(request: CreateTenantBody): Promise<CreatedTenant> {
    const apiKey = generateApiKey();
    const settings = settingsOf(request);
    const tenant = await this.tenants.createWithKey({
      name: settings.name ?? TENANT_DEFAULTS.name,
      creditsLimit: settings.creditsLimit ?? TENANT_DEFAULTS.credits,
      concurrency: settings.concurrency ?? TENANT_DEFAULTS.concurrency,
      maxActiveJobs: settings.maxActiveJobs ?? TENANT_DEFAULTS.maxActiveJobs,
      periodDays: settings.periodDays ?? TENANT_DEFAULTS.periodDays,
      periodEndsAt: settings.periodEndsAt,
      features: settings.features ?? [...TENANT_DEFAULTS.features],
      products: settings.products ?? [...TENANT_DEFAULTS.products],
      subscriptionStatus: settings.subscriptionStatus ?? TENANT_DEFAULTS.subscriptionStatus,
      emailVerified: settings.emailVerified ?? TENANT_DEFAULTS.emailVerified,
      rateLimitPerMinute: settings.rateLimitPerMinute ?? TENANT_DEFAULTS.rateLimitPerMinute,
      captchaSolver: settings.captchaSolver,
      key: { hash: hashApiKey(apiKey), hint: apiKeyHint(apiKey), expiresAt: request.api_key_expires_at ?? null },
    });
    return { tenant, apiKey };
  }

  /** @throws TenantError `tenant_not_found`. */
  async update(tenantId: string, request: UpdateTenantBody): Promise<TenantRecord> {
    const tenant = UUID.test(tenantId)
      ? await this.tenants.update(tenantId, settingsOf(request), request.api_key_expires_at)
      : undefined;
    if (!tenant) throw new TenantError(TenantErrorCode.TenantNotFound, 'No tenant has this ID; check the `tenant_id`.');
    return tenant;
  }
}

function settingsOf(request: CreateTenantBody | UpdateTenantBody): TenantSettings {
  return {
    name: request.name,
    creditsLimit: request.credits,
    concurrency: request.concurrency,
    maxActiveJobs: request.max_active_jobs,
    periodDays: request.period_days,
    periodEndsAt: request.period_ends_at ?? undefined,
    features: request.features,
    products: request.products,
    subscriptionStatus: request.subscription_status,
    emailVerified: request.email_verified,
    rateLimitPerMinute: request.rate_limit_per_minute,
    captchaSolver: request.captcha_solver,
  };
}
