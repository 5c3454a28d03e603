import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { apiKeyHint, generateApiKey, hashApiKey } from '../auth/api-key';
import { isUuid } from '@trawl/http';
import { CreatedCursor } from './admin-cursors';
import { CaptchaSolverKeys } from './captcha-solver-keys';
import { TenantError, TenantErrorCode } from './tenants.errors';
import type { CaptchaSolverBody, CreateTenantBody, UpdateTenantBody } from '@trawl/contracts/http';
import { TENANT_DEFAULTS } from './tenants.schemas';
import { TenantRecord, TenantSettings, TenantsRepository } from './tenants.repository';
import { PlanDefaults, planDefaultsOf } from './plan-defaults.config';

/** A new tenant with its API key: the only time the key is ever shown. */
export interface CreatedTenant {
  tenant: TenantRecord;
  apiKey: string;
}

@Injectable()
export class TenantsService {
  private readonly plan: PlanDefaults;

  constructor(
    private readonly tenants: TenantsRepository,
    private readonly solverKeys: CaptchaSolverKeys,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.plan = planDefaultsOf(config);
  }

  /**
   * A new tenant with one key named `default`, audited as made by the admin token of `adminFingerprint`.
   * @throws TenantError `secrets_unavailable` (a solver key without `SECRETS_KEY`).
   */
  async create(request: CreateTenantBody, adminFingerprint: string): Promise<CreatedTenant> {
    const apiKey = generateApiKey();
    const id = randomUUID();
    const settings = this.settingsOf(id, request);
    const tenant = await this.tenants.createWithKey(
      {
        id,
        name: settings.name ?? TENANT_DEFAULTS.name,
        creditsLimit: settings.creditsLimit ?? this.plan.credits,
        concurrency: settings.concurrency ?? this.plan.concurrency,
        maxActiveJobs: settings.maxActiveJobs ?? this.plan.maxActiveJobs,
        extractDomainsPerPeriod: settings.extractDomainsPerPeriod ?? this.plan.extractDomainsPerPeriod,
        periodDays: settings.periodDays ?? this.plan.periodDays,
        periodEndsAt: settings.periodEndsAt,
        features: settings.features ?? [...TENANT_DEFAULTS.features],
        products: settings.products ?? [...TENANT_DEFAULTS.products],
        subscriptionStatus: settings.subscriptionStatus ?? TENANT_DEFAULTS.subscriptionStatus,
        emailVerified: settings.emailVerified ?? TENANT_DEFAULTS.emailVerified,
        rateLimitPerMinute: settings.rateLimitPerMinute ?? this.plan.rateLimitPerMinute,
        captchaSolver: settings.captchaSolver,
        key: { hash: hashApiKey(apiKey), hint: apiKeyHint(apiKey), expiresAt: request.api_key_expires_at ?? null },
      },
      { action: 'tenant.created', adminFingerprint, details: { fields: fieldsOf(request) } },
    );
    return { tenant, apiKey };
  }

  /** @throws TenantError `tenant_not_found`, `secrets_unavailable`. */
  async update(tenantId: string, request: UpdateTenantBody, adminFingerprint: string): Promise<TenantRecord> {
    const tenant = isUuid(tenantId)
      ? await this.tenants.update(tenantId, this.settingsOf(tenantId, request), request.api_key_expires_at, {
          action: 'tenant.updated',
          tenantId,
          adminFingerprint,
          // The names of the fields set, never their values: a solver key is one of them.
          details: { fields: fieldsOf(request) },
        })
      : undefined;
    return tenant ?? tenantNotFound();
  }

  /** @throws TenantError `tenant_not_found`. */
  async find(tenantId: string): Promise<TenantRecord> {
    const tenant = isUuid(tenantId) ? await this.tenants.find(tenantId) : undefined;
    return tenant ?? tenantNotFound();
  }

  /** One page of tenants, newest first, and whether there are more. */
  async list(cursor: CreatedCursor | undefined, limit: number): Promise<{ tenants: TenantRecord[]; more: boolean }> {
    const rows = await this.tenants.listPage(cursor, limit + 1);
    return { tenants: rows.slice(0, limit), more: rows.length > limit };
  }

  /**
   * Suspends (`suspended`) or resumes the tenant: its keys answer `AUTH011` on every route, within
   * `API_KEY_CACHE_TTL_MS` (Fetch at once). Repeating it changes nothing and records nothing.
   * @throws TenantError `tenant_not_found`.
   */
  async setSuspended(tenantId: string, suspended: boolean, adminFingerprint: string): Promise<TenantRecord> {
    const result = isUuid(tenantId)
      ? await this.tenants.setSuspended(tenantId, suspended, {
          action: suspended ? 'tenant.suspended' : 'tenant.resumed',
          tenantId,
          adminFingerprint,
        })
      : undefined;
    return result?.tenant ?? tenantNotFound();
  }

  /**
   * The tenant's own CAPTCHA solver (issue 3: "a tenant configures its key"), or none (`null`);
   * answers the tenant as stored. The key is sealed and never shown again.
   * @throws TenantError `secrets_unavailable`.
   */
  async setCaptchaSolver(tenantId: string, solver: CaptchaSolverBody | null): Promise<TenantRecord> {
    const tenant = await this.tenants.update(tenantId, { captchaSolver: this.sealed(tenantId, solver) }, undefined);
    return tenant ?? tenantNotFound();
  }

  private settingsOf(tenantId: string, request: CreateTenantBody | UpdateTenantBody): TenantSettings {
    return { ...settingsOf(request), captchaSolver: this.sealed(tenantId, request.captcha_solver) };
  }

  /** A solver as stored: its key sealed; `null` (remove) and `undefined` (leave as is) pass through. */
  private sealed<T extends null | undefined>(tenantId: string, solver: CaptchaSolverBody | T): { endpoint: string; keySealed: Buffer } | T {
    return solver ? { endpoint: solver.endpoint, keySealed: this.solverKeys.seal(tenantId, solver.key) } : (solver as T);
  }
}

/** The fields a request sets, by their API names. */
function fieldsOf(request: CreateTenantBody | UpdateTenantBody): string[] {
  return Object.entries(request)
    .filter(([, value]) => value !== undefined)
    .map(([field]) => field)
    .sort();
}

/** @throws TenantError `tenant_not_found`. */
export function tenantNotFound(): never {
  throw new TenantError(TenantErrorCode.TenantNotFound, 'No tenant has this ID; check the `tenant_id`.');
}

function settingsOf(request: CreateTenantBody | UpdateTenantBody): Omit<TenantSettings, 'captchaSolver'> {
  return {
    name: request.name,
    creditsLimit: request.credits,
    concurrency: request.concurrency,
    maxActiveJobs: request.max_active_jobs,
    extractDomainsPerPeriod: request.extract_domains_per_period,
    periodDays: request.period_days,
    periodEndsAt: request.period_ends_at ?? undefined,
    features: request.features,
    products: request.products,
    subscriptionStatus: request.subscription_status,
    emailVerified: request.email_verified,
    rateLimitPerMinute: request.rate_limit_per_minute,
  };
}
