import { PLAN_FEATURES, PLAN_PRODUCTS } from '@trawl/contracts';

/**
 * What a new tenant gets when the admin leaves a field out, beside the installation's plan defaults
 * (`PLAN_DEFAULT_*`, plan-defaults.config.ts).
 */
export const TENANT_DEFAULTS = {
  name: 'Unnamed tenant',
  features: [...PLAN_FEATURES],
  products: [...PLAN_PRODUCTS],
  subscriptionStatus: 'active',
  emailVerified: true,
} as const;
