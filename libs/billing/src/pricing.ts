/** Tiers a page can be served by, and their price in credits (Fetch spec §8, fetch-details "Costs"). */
export enum Tier {
  Basic = 'basic',
  JsRender = 'js_render',
  Premium = 'premium',
  PremiumJsRender = 'premium_js_render',
}

export const TIER_CREDITS: Record<Tier, number> = {
  [Tier.Basic]: 1,
  [Tier.JsRender]: 5,
  [Tier.Premium]: 10,
  [Tier.PremiumJsRender]: 25,
};

/** The tier a request is served at with these options (fetch-details "Costs"). */
export function tierOf(options: { jsRender: boolean; premiumProxy: boolean }): Tier {
  if (options.jsRender && options.premiumProxy) return Tier.PremiumJsRender;
  if (options.premiumProxy) return Tier.Premium;
  if (options.jsRender) return Tier.JsRender;
  return Tier.Basic;
}

/** Credits of a tier named on the wire (e.g. a worker's `billed_tier`); `undefined` for an unknown name. */
export function creditsOfTier(name: string): number | undefined {
  return (Object.values(Tier) as string[]).includes(name) ? TIER_CREDITS[name as Tier] : undefined;
}

/**
 * The plan features (`js_render`, `premium_proxy`) a Fetch request or batch task with these options
 * needs. `mode=auto` needs none of its own, since it escalates only within the plan
 * ({@link autoTiersOf}), but a proxy country is only ever served by the premium pool.
 */
export function featuresNeeded(options: {
  js_render: boolean;
  premium_proxy: boolean;
  mode?: 'auto';
  proxy_country?: string;
}): ('js_render' | 'premium_proxy')[] {
  if (options.mode === 'auto') return options.proxy_country ? ['premium_proxy'] : [];
  return [...(options.js_render ? (['js_render'] as const) : []), ...(options.premium_proxy ? (['premium_proxy'] as const) : [])];
}

/**
 * The tiers `mode=auto` may escalate to for a plan with these features (`js_render`,
 * `premium_proxy`): always basic, and each tier whose features the plan includes.
 */
export function autoTiersOf(features: readonly string[]): Tier[] {
  const jsRender = features.includes('js_render');
  const premiumProxy = features.includes('premium_proxy');
  return Object.values(Tier).filter((tier) => {
    const needsJs = tier === Tier.JsRender || tier === Tier.PremiumJsRender;
    const needsPremium = tier === Tier.Premium || tier === Tier.PremiumJsRender;
    return (!needsJs || jsRender) && (!needsPremium || premiumProxy);
  });
}
