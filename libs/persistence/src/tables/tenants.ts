import type { SubscriptionStatus } from '@trawl/contracts';
import { columnNames, nullableColumnNames } from './columns';

/**
 * A `tenants` row: an account with its plan, limits and billing period. The gateway's admin API
 * writes it and every request of the tenant reads it; billing raises `credits_used`; the crawl
 * coordinator and the scheduler's dispatcher read the plan and the credits left. Migrations
 * 1763798400000-init, 1763884800000-fetch-accounts, 1764000000080-sealed-captcha-solver-key,
 * 1764000000130-tenant-admin, 1764000000140-extract. As `pg` returns it: `bigint` as a string.
 */
export interface TenantsRow {
  id: string;
  name: string;
  /** `bigint`: credits of one billing period. */
  credits_limit: string;
  /** `bigint`: the period's sum of the credit ledger, raised with each charge. */
  credits_used: string;
  period_started_at: Date;
  period_ends_at: Date;
  /** Length of a billing period, in days. */
  period_days: number;
  concurrency: number;
  max_active_jobs: number;
  /** New Extract domains the tenant may ask for per billing period. */
  extract_domains_per_period: number;
  /** No CHECK: the admin API writes only `PLAN_FEATURES` of @trawl/contracts. */
  plan_features: string[];
  /** No CHECK: the admin API writes only `PLAN_PRODUCTS` of @trawl/contracts. */
  plan_products: string[];
  subscription_status: SubscriptionStatus;
  email_verified: boolean;
  rate_limit_per_minute: number;
  captcha_solver_endpoint: string | null;
  /** A key set before keys were sealed (migration 1764000000080); cleared when the solver is next set. */
  captcha_solver_key: string | null;
  /** The solver key sealed under `SECRETS_KEY`. */
  captcha_solver_key_sealed: Buffer | null;
  /** When the operator suspended the tenant; `null` while it is not. */
  suspended_at: Date | null;
  created_at: Date;
}

/** Every column of `tenants`. */
export const TENANTS_COLUMNS = columnNames<TenantsRow>({
  id: true,
  name: true,
  credits_limit: true,
  credits_used: true,
  period_started_at: true,
  period_ends_at: true,
  period_days: true,
  concurrency: true,
  max_active_jobs: true,
  extract_domains_per_period: true,
  plan_features: true,
  plan_products: true,
  subscription_status: true,
  email_verified: true,
  rate_limit_per_minute: true,
  captcha_solver_endpoint: true,
  captcha_solver_key: true,
  captcha_solver_key_sealed: true,
  suspended_at: true,
  created_at: true,
});

/** The columns of `tenants` that may be `NULL`. */
export const TENANTS_NULLABLE_COLUMNS = nullableColumnNames<TenantsRow>({
  captcha_solver_endpoint: true,
  captcha_solver_key: true,
  captcha_solver_key_sealed: true,
  suspended_at: true,
});
