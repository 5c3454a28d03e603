import { z } from 'zod';
import { PLAN_FEATURES, PLAN_PRODUCTS } from '../plans';
import { SUBSCRIPTION_STATUSES } from '../states';
import type { ApiRoute } from './api-route';
import { problemResponses } from './problem.schema';

const timestamp = z.iso.datetime();

/** What a tenant needs to plan its use (spec-extract-fetch §2 "Subscription details"). */
export const subscriptionDetails = z
  .object({
    /** Credits used of the period's allowance, in percent (0–100, two decimals). */
    usage_percent: z.number().min(0).max(100),
    period_started_at: timestamp,
    period_ends_at: timestamp,
    credits_total: z.number().int().min(0),
    credits_used: z.number().int().min(0),
    credits_left: z.number().int().min(0),
    concurrency_limit: z.number().int().min(0),
    concurrency_in_use: z.number().int().min(0),
    concurrency_remaining: z.number().int().min(0),
    rate_limit_per_minute: z.number().int().min(0),
    subscription_status: z.enum(SUBSCRIPTION_STATUSES),
    features: z.array(z.enum(PLAN_FEATURES)),
    products: z.array(z.enum(PLAN_PRODUCTS)),
    /** Crawls and batch jobs running now, against `max_active_jobs`. */
    active_jobs: z.number().int().min(0),
    max_active_jobs: z.number().int().min(0),
  })
  .meta({ id: 'SubscriptionDetails' });
export type SubscriptionDetails = z.infer<typeof subscriptionDetails>;

/** A CAPTCHA solver: its API endpoint and the tenant's key for it (stored sealed, never shown again). */
export function captchaSolverFields() {
  return z.strictObject({
    endpoint: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
    key: z.string({ error: 'must be a string' }).min(1, { error: 'must not be empty' }).max(1_000),
  });
}

/** Body of `PUT /v1/subscriptions/self/captcha_solver`: the tenant sets its own solver. */
export const captchaSolverBody = captchaSolverFields().meta({ id: 'CaptchaSolverRequest' });
export type CaptchaSolverBody = z.output<typeof captchaSolverBody>;

/** What a tenant sees of its solver: the endpoint, and that a key is set (never the key). */
export const captchaSolverView = z
  .object({ captcha_solver: z.object({ endpoint: z.string(), key_configured: z.literal(true) }).nullable() })
  .meta({ id: 'CaptchaSolver' });
export type CaptchaSolverView = z.infer<typeof captchaSolverView>;

/** The tenant's own account: usage and its CAPTCHA solver. */
export const accountRoutes: ApiRoute[] = [
  {
    method: 'get',
    path: '/v1/subscriptions/self/details',
    operationId: 'getSubscriptionDetails',
    summary: 'Real-time usage of the account (takes no concurrency slot)',
    tag: 'Account',
    responses: { 200: subscriptionDetails, ...problemResponses(400) },
  },
  {
    method: 'get',
    path: '/v1/subscriptions/self/captcha_solver',
    operationId: 'getCaptchaSolver',
    summary: "Read the account's CAPTCHA solver",
    tag: 'Account',
    responses: { 200: captchaSolverView, ...problemResponses(400) },
  },
  {
    method: 'put',
    path: '/v1/subscriptions/self/captcha_solver',
    operationId: 'setCaptchaSolver',
    summary: "Set or replace the account's CAPTCHA solver",
    tag: 'Account',
    body: captchaSolverBody,
    responses: { 200: captchaSolverView, ...problemResponses(400, 413, 415, 422, 503) },
  },
  {
    method: 'delete',
    path: '/v1/subscriptions/self/captcha_solver',
    operationId: 'removeCaptchaSolver',
    summary: "Remove the account's CAPTCHA solver",
    tag: 'Account',
    responses: { 204: { description: 'Removed (or there was none).' }, ...problemResponses(400) },
  },
];
