import { envInt } from '@trawl/config';

/**
 * The plan a new tenant gets for each field the admin leaves out, spread into the gateway's config
 * schema. An installation sets its own (the Helm chart's `plans` values); a tenant created earlier
 * keeps what it was given.
 */
export const planDefaultsConfigShape = {
  /** Credits per billing period. Default 1,000,000. */
  PLAN_DEFAULT_CREDITS: envInt(1_000_000, 0, 1_000_000_000_000),
  /** Concurrent Fetch requests. Default 5. */
  PLAN_DEFAULT_CONCURRENCY: envInt(5, 1, 10_000),
  /** Active crawls and batch jobs at once. Default 3. */
  PLAN_DEFAULT_MAX_ACTIVE_JOBS: envInt(3, 1, 1_000),
  /** New domains a tenant may ask Extract to prepare per billing period. Default 10. */
  PLAN_DEFAULT_EXTRACT_DOMAINS_PER_PERIOD: envInt(10, 0, 100_000),
  /** Fetch requests per minute. Default 600. */
  PLAN_DEFAULT_RATE_LIMIT_PER_MINUTE: envInt(600, 1, 1_000_000),
  /** Length of a billing period, in days. Default 30. */
  PLAN_DEFAULT_PERIOD_DAYS: envInt(30, 1, 3_660),
};

export interface PlanDefaults {
  credits: number;
  concurrency: number;
  maxActiveJobs: number;
  extractDomainsPerPeriod: number;
  rateLimitPerMinute: number;
  periodDays: number;
}

export function planDefaultsOf(config: {
  PLAN_DEFAULT_CREDITS: number;
  PLAN_DEFAULT_CONCURRENCY: number;
  PLAN_DEFAULT_MAX_ACTIVE_JOBS: number;
  PLAN_DEFAULT_EXTRACT_DOMAINS_PER_PERIOD: number;
  PLAN_DEFAULT_RATE_LIMIT_PER_MINUTE: number;
  PLAN_DEFAULT_PERIOD_DAYS: number;
}): PlanDefaults {
  return {
    credits: config.PLAN_DEFAULT_CREDITS,
    concurrency: config.PLAN_DEFAULT_CONCURRENCY,
    maxActiveJobs: config.PLAN_DEFAULT_MAX_ACTIVE_JOBS,
    extractDomainsPerPeriod: config.PLAN_DEFAULT_EXTRACT_DOMAINS_PER_PERIOD,
    rateLimitPerMinute: config.PLAN_DEFAULT_RATE_LIMIT_PER_MINUTE,
    periodDays: config.PLAN_DEFAULT_PERIOD_DAYS,
  };
}
