import { autoTiersOf, creditsOfTier, Tier, TIER_CREDITS, tierOf } from './pricing';

describe('pricing', () => {
  describe(autoTiersOf.name, () => {
    it.each([
      [[], [Tier.Basic]],
      [['js_render'], [Tier.Basic, Tier.JsRender]],
      [
        ['premium_proxy', 'proxy_mode'],
        [Tier.Basic, Tier.Premium],
      ],
      [
        ['premium_proxy', 'js_render'],
        [Tier.Basic, Tier.JsRender, Tier.Premium, Tier.PremiumJsRender],
      ],
    ])('a plan with %j lets mode=auto use %j', (features, tiers) => {
      expect(autoTiersOf(features)).toEqual(tiers);
    });
  });

  describe(tierOf.name, () => {
    it.each([
      [false, false, Tier.Basic, 1],
      [true, false, Tier.JsRender, 5],
      [false, true, Tier.Premium, 10],
      [true, true, Tier.PremiumJsRender, 25],
    ])('js_render=%p premium=%p is %s at %i credits', (jsRender, premiumProxy, tier, credits) => {
      expect(tierOf({ jsRender, premiumProxy })).toBe(tier);
      expect(TIER_CREDITS[tierOf({ jsRender, premiumProxy })]).toBe(credits);
    });
  });

  describe(creditsOfTier.name, () => {
    it('prices known tier names and nothing else', () => {
      expect(creditsOfTier('premium_js_render')).toBe(25);
      expect(creditsOfTier('gold')).toBeUndefined();
    });
  });
});
