import { Tier } from '@trawl/billing';
import type { FetchOptionsV1 } from '@trawl/contracts';
import type { FetchEngine } from './fetch-engine';
import { FetchRequestError } from '../fetch-requests/fetch-request.errors';

/** The engines a worker has: HTTP always, a browser when Chromium is configured. */
export interface FetchEngineSet {
  /** `basic` and `premium`. */
  http: FetchEngine;
  /** `js_render` and `premium_js_render`. */
  browser?: FetchEngine;
}

/** The tier the options ask for (fetch-details "Costs"): js_render and premium_proxy combine. */
export function requestedTier(options: Pick<FetchOptionsV1, 'js_render' | 'premium_proxy'>): Tier {
  if (options.premium_proxy) return options.js_render ? Tier.PremiumJsRender : Tier.Premium;
  return options.js_render ? Tier.JsRender : Tier.Basic;
}

/**
 * The engine of a tier.
 *
 * @throws FetchRequestError `ERR0001` when this worker has no browser for a rendering tier (a
 *   deployment mistake, not the tenant's).
 */
export function engineFor(engines: FetchEngineSet, tier: Tier): FetchEngine {
  if (tier === Tier.Basic || tier === Tier.Premium) return engines.http;
  if (!engines.browser) throw new FetchRequestError('ERR0001', `This worker has no browser for the ${tier} tier.`);
  return engines.browser;
}
