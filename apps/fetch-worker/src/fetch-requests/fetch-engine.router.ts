import { Tier } from '@trawl/billing';
import type { FetchOptionsV1 } from '@trawl/contracts';
import type { FetchEngine } from './fetch-engine';
import { FetchRequestError } from './fetch-request.errors';

/** The engines a worker has, by tier; absent ones are not configured in this worker. */
export interface FetchEngineSet {
  basic: FetchEngine;
  jsRender?: FetchEngine;
  premium?: FetchEngine;
  premiumJsRender?: FetchEngine;
}

/** The tier the options ask for (fetch-details "Costs"): js_render and premium_proxy combine. */
export function requestedTier(options: Pick<FetchOptionsV1, 'js_render' | 'premium_proxy'>): Tier {
  if (options.premium_proxy) return options.js_render ? Tier.PremiumJsRender : Tier.Premium;
  return options.js_render ? Tier.JsRender : Tier.Basic;
}

/**
 * Picks the engine for a request by the tier its options ask for. `mode=auto` starts at the
 * cheapest tier until adaptive stealth is wired in.
 *
 * @throws FetchRequestError `ERR0001` when this worker has no engine for the tier (a deployment
 *   mistake, not the tenant's).
 */
export function engineFor(engines: FetchEngineSet, options: FetchOptionsV1): FetchEngine {
  const tier = requestedTier(options);
  const engine = {
    [Tier.Basic]: engines.basic,
    [Tier.JsRender]: engines.jsRender,
    [Tier.Premium]: engines.premium,
    [Tier.PremiumJsRender]: engines.premiumJsRender,
  }[tier];
  if (!engine) throw new FetchRequestError('ERR0001', `This worker has no engine for the ${tier} tier.`);
  return engine;
}
