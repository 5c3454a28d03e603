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
