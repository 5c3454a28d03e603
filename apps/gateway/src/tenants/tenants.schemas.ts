import { z } from 'zod';
import { optionalBoundedInt, optionalBoundedString } from '../problems/body-validation';

/** Body of `POST /admin/v1/tenants`; every field is optional. */
export const createTenantBody = z.strictObject({
  name: optionalBoundedString(1, 200),
  /** Credits per 30-day billing period. */
  credits: optionalBoundedInt(0, 1_000_000_000_000),
  /** Concurrent Fetch requests. */
  concurrency: optionalBoundedInt(1, 10_000),
  /** Active crawls and batch jobs at once. */
  max_active_jobs: optionalBoundedInt(1, 1_000),
});
export type CreateTenantBody = z.output<typeof createTenantBody>;

/** What a new tenant gets when the admin leaves a field out. */
export const TENANT_DEFAULTS = {
  name: 'Unnamed tenant',
  credits: 1_000_000,
  concurrency: 5,
  maxActiveJobs: 3,
  /** Length of a billing period, in days. */
  periodDays: 30,
} as const;
