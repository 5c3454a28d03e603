import { z } from 'zod';
import { SUBSCRIPTION_STATUSES } from '../states';
import { PLAN_FEATURES, PLAN_PRODUCTS } from '../plans';
import { captchaSolverFields } from './account';
import { optionalBoundedInt, optionalBoundedString } from './body-fields';

// Bodies of the operators' admin API (`/admin/v1`, `Authorization: Bearer $ADMIN_TOKEN`). The admin
// API is not part of the public OpenAPI document (docs/decisions/http-api.md, "Admin API").

const optionalList = <T extends string>(values: readonly [T, ...T[]]) =>
  z
    .array(z.enum(values, { error: `must hold only ${values.join(', ')}` }), { error: 'must be an array of strings' })
    .nullish()
    .transform((value) => (value ? [...new Set(value)] : undefined));

const optionalInstant = z.iso
  .datetime({ offset: true, error: 'must be an ISO 8601 date-time, e.g. 2030-01-01T00:00:00Z' })
  .nullish()
  .transform((value) => (value === undefined || value === null ? value : new Date(value)));

/** Fields an operator may set on a tenant, at creation or later; every one is optional. */
const tenantFields = {
  name: optionalBoundedString(1, 200),
  /** Credits per billing period. */
  credits: optionalBoundedInt(0, 1_000_000_000_000),
  /** Concurrent Fetch requests. */
  concurrency: optionalBoundedInt(1, 10_000),
  /** Active crawls and batch jobs at once. */
  max_active_jobs: optionalBoundedInt(1, 1_000),
  /** New domains the tenant may ask Extract to prepare per billing period (0: none). */
  extract_domains_per_period: optionalBoundedInt(0, 100_000),
  /** Length of a billing period, in days (the next period starts when this one ends). */
  period_days: optionalBoundedInt(1, 3_660),
  /** End of the current billing period (default: now + period_days). */
  period_ends_at: optionalInstant,
  /** Features of the plan: js_render, premium_proxy, proxy_mode (default all). */
  features: optionalList(PLAN_FEATURES),
  /** Products of the plan: fetch, crawl, batch, extract (default all). */
  products: optionalList(PLAN_PRODUCTS),
  subscription_status: z
    .enum(SUBSCRIPTION_STATUSES, { error: `must be one of ${SUBSCRIPTION_STATUSES.join(', ')}` })
    .nullish()
    .transform((value) => value ?? undefined),
  email_verified: z
    .boolean({ error: 'must be a boolean' })
    .nullish()
    .transform((value) => value ?? undefined),
  /** Fetch requests per minute. */
  rate_limit_per_minute: optionalBoundedInt(1, 1_000_000),
  /** The tenant's CAPTCHA solver; `null` removes it. The key is stored and never shown again. */
  captcha_solver: captchaSolverFields().nullish(),
  /** When the tenant's API keys stop working (`AUTH005`); `null` means never. */
  api_key_expires_at: optionalInstant,
};

/** Body of `POST /admin/v1/tenants`. */
export const createTenantBody = z.strictObject(tenantFields);
export type CreateTenantBody = z.output<typeof createTenantBody>;

/** Body of `PATCH /admin/v1/tenants/{id}`: only the fields given change. */
export const updateTenantBody = z.strictObject(tenantFields);
export type UpdateTenantBody = z.output<typeof updateTenantBody>;

/** Body of `POST /admin/v1/tenants/{id}/keys`: a new key, named (unique among the tenant's live keys). */
export const createApiKeyBody = z.strictObject({
  name: z
    .string({ error: (issue) => (issue.input === undefined || issue.input === null ? 'is required' : 'must be a string') })
    .min(1, { error: 'must be 1 to 100 characters long' })
    .max(100, { error: 'must be 1 to 100 characters long' }),
  /** When the key stops working (`AUTH005`); absent or `null` means never. */
  expires_at: optionalInstant,
});
export type CreateApiKeyBody = z.output<typeof createApiKeyBody>;
