/** What a tenant's plan may include; the admin API sets them, the gateway and billing check them. */

/** Features a plan may include (`AUTH010` when a request needs one the plan lacks). */
export const PLAN_FEATURES = ['js_render', 'premium_proxy', 'proxy_mode'] as const;
export type PlanFeature = (typeof PLAN_FEATURES)[number];

/** Products a plan may include (`AUTH012` otherwise). */
export const PLAN_PRODUCTS = ['fetch', 'crawl', 'batch', 'extract'] as const;
export type PlanProduct = (typeof PLAN_PRODUCTS)[number];
