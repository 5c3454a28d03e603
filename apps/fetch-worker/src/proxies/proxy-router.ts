import type { FETCH_TIERS } from '@trawl/contracts';
import type { ProxyEndpoint, ProxyPools } from './proxy-pools';
import { ProxyError, ProxyErrorCode } from './proxy.errors';
import type { SessionBindings } from './session-bindings';

export type FetchTier = (typeof FETCH_TIERS)[number];

export interface ProxyRouteRequest {
  /** The tier being attempted (for `mode=auto`, the tier of this attempt). */
  tier: FetchTier;
  /** `proxy_country` (lowercase alpha-2); used by premium tiers only. */
  country?: string;
  /** `session_id`: the same tenant and session get the same proxy of a pool for 10 minutes. */
  sessionId?: number;
  tenantId: string;
}

/** The upstream a request goes through. */
export interface ProxyChoice {
  /** Proxy URL with credentials: a secret, never logged (log `id`). */
  url: string;
  /** Secret-free identity (`premium.us#3fa4…`). */
  id: string;
  pool: string;
  country?: string;
}

/**
 * Picks the upstream proxy of a request (ARCHITECTURE §3 "Egress"): `basic`/`js_render` use the
 * `standard` pool, premium tiers `premium.<country>` when a country is asked, else `premium` (or,
 * without one, any country pool). A tier whose pool is not configured egresses directly (answer
 * `undefined`), so an installation without proxies works as before. Without `session_id` proxies
 * rotate round-robin per pool; with it the first choice is bound in {@link SessionBindings}.
 */
export class ProxyRouter {
  private readonly rotation = new Map<string, number>();
  private readonly anyCountry: readonly ProxyEndpoint[];

  constructor(
    private readonly pools: ProxyPools,
    private readonly bindings?: SessionBindings,
  ) {
    this.anyCountry = [...pools.premiumByCountry.values()].flat();
  }

  /**
   * @throws ProxyError `UnknownCountry` when a premium tier asks for a country without a pool (the
   *   worker answers REQS004 naming `proxy_country`); `SessionStoreFailed` when `session_id` bindings
   *   cannot be read or written.
   */
  async choose(request: ProxyRouteRequest): Promise<ProxyChoice | undefined> {
    const { label, candidates } = this.candidates(request);
    if (candidates.length === 0) return undefined;
    const next = this.rotate(label, candidates);
    if (request.sessionId === undefined || !this.bindings) return toChoice(next);
    const key = `${request.tenantId}.${request.sessionId}.${label}`;
    const boundId = await this.bindings.bind(key, next.id);
    const bound = candidates.find((endpoint) => endpoint.id === boundId);
    if (bound) return toChoice(bound);
    // The bound proxy left the configuration: the session moves, and keeps its new proxy 10 minutes.
    await this.bindings.rebind(key, next.id);
    return toChoice(next);
  }

  /** Whether any premium pool is configured (else a premium tier egresses like basic). */
  offersPremium(): boolean {
    return this.pools.premium.length > 0 || this.anyCountry.length > 0;
  }

  /** The countries with a premium pool, for the REQS004 detail. */
  countries(): string[] {
    return [...this.pools.premiumByCountry.keys()].sort();
  }

  /** The endpoints to pick from, and a label naming that set (rotation and binding key). */
  private candidates({ tier, country }: ProxyRouteRequest): { label: string; candidates: readonly ProxyEndpoint[] } {
    if (tier === 'basic' || tier === 'js_render') return { label: 'standard', candidates: this.pools.standard };
    if (country !== undefined) {
      const pool = this.pools.premiumByCountry.get(country);
      if (!pool) {
        const known = this.countries();
        const offer = known.length > 0 ? `; available: ${known.join(', ')}` : '';
        throw new ProxyError(ProxyErrorCode.UnknownCountry, `proxy_country ${country} is not available${offer}`);
      }
      return { label: `premium.${country}`, candidates: pool };
    }
    if (this.pools.premium.length > 0) return { label: 'premium', candidates: this.pools.premium };
    return { label: 'premium.any', candidates: this.anyCountry };
  }

  private rotate(label: string, candidates: readonly ProxyEndpoint[]): ProxyEndpoint {
    const turn = this.rotation.get(label) ?? 0;
    this.rotation.set(label, (turn + 1) % candidates.length);
    return candidates[turn % candidates.length];
  }
}

function toChoice(endpoint: ProxyEndpoint): ProxyChoice {
  const choice: ProxyChoice = { url: endpoint.url, id: endpoint.id, pool: endpoint.pool };
  if (endpoint.country !== undefined) choice.country = endpoint.country;
  return choice;
}
