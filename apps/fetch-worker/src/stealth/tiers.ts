import type { FETCH_TIERS } from '@trawl/contracts';
import { registrableDomain } from '@trawl/egress';

export type FetchTier = (typeof FETCH_TIERS)[number];

/** Escalation order of adaptive stealth, cheapest first (credits 1, 5, 10, 25). */
const ESCALATION_ORDER: readonly FetchTier[] = ['basic', 'js_render', 'premium', 'premium_js_render'];

/** True for the tiers that render with the browser (scripts run). */
export function rendersJavaScript(tier: FetchTier): boolean {
  return tier === 'js_render' || tier === 'premium_js_render';
}

export function isFetchTier(value: string): value is FetchTier {
  return (ESCALATION_ORDER as readonly string[]).includes(value);
}

/**
 * The tiers to try, in order, from the highest of `remembered` and `floor` up to the last one.
 * Never below where we start: a tier that worked is not doubted until its memory expires.
 */
export function tiersFrom(remembered: FetchTier | undefined, floor: FetchTier = 'basic'): FetchTier[] {
  const start = Math.max(ESCALATION_ORDER.indexOf(remembered ?? 'basic'), ESCALATION_ORDER.indexOf(floor));
  return ESCALATION_ORDER.slice(start);
}

/**
 * The key adaptive stealth remembers a tier under: the site by `registrableDomain`, the same rule
 * as a crawl's scope (`www.shop.co.uk` → `shop.co.uk`; `a.github.io` and `b.github.io` apart; the
 * host itself for IP literals and single-label names).
 */
export function stealthDomainOf(url: string | URL): string {
  return registrableDomain((typeof url === 'string' ? new URL(url) : url).hostname);
}
