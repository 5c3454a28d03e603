import { Tier, TIER_CREDITS, tierOf } from '@trawl/billing';
import { checkServiceParams } from './service-params';

/** Credits a run of the job may cost: a range, since `mode=auto` picks each task's tier as it goes. */
export interface CreditEstimate {
  tasks: number;
  min: number;
  max: number;
  /** Tasks by the tier they are priced at; `auto` for adaptive ones (basic to premium_js_render). */
  tasksByTier: Partial<Record<Tier | 'auto', number>>;
}

/** Adaptive mode escalates from the cheapest tier to the dearest (fetch-worker's ESCALATION_ORDER). */
const AUTO_MIN = TIER_CREDITS[Tier.Basic];
const AUTO_MAX = TIER_CREDITS[Tier.PremiumJsRender];

/**
 * Prices every task at the tier its merged `service_params` imply (spec-batch-api §1: pricing equals
 * the Fetch API's). An upper bound in practice: most failed requests cost nothing (a 404 or an
 * unknown domain is billed, as by the Fetch API), and carried results of a retry are not billed again.
 */
export function estimateCredits(
  jobParams: Record<string, unknown>,
  groups: readonly { serviceParams: Record<string, unknown> | null; tasks: number }[],
): CreditEstimate {
  const estimate: CreditEstimate = { tasks: 0, min: 0, max: 0, tasksByTier: {} };
  for (const group of groups) {
    const checked = checkServiceParams('https://example.com/', jobParams, group.serviceParams ?? {});
    // Every stored task passed these checks when it was submitted.
    if (!checked.ok) throw new Error(`stored service_params no longer valid: ${checked.problem.parameter}`);
    const options = checked.query.options;
    const tier = options.mode === 'auto' ? 'auto' : tierOf({ jsRender: options.js_render, premiumProxy: options.premium_proxy });
    const [min, max] = tier === 'auto' ? [AUTO_MIN, AUTO_MAX] : [TIER_CREDITS[tier], TIER_CREDITS[tier]];
    estimate.tasks += group.tasks;
    estimate.min += min * group.tasks;
    estimate.max += max * group.tasks;
    estimate.tasksByTier[tier] = (estimate.tasksByTier[tier] ?? 0) + group.tasks;
  }
  return estimate;
}
