import { Tier } from '@trawl/billing';
import type { FetchRequestV1 } from '@trawl/contracts';
import { CaptchaPass, ChallengedPage } from '../captcha/captcha-pass';
import type { BrowserIdentity, IdentityGenerator } from '../identity';
import type { ProxyRouter } from '../proxies';
import { AdaptiveFetcher, BlockDetector, stealthDomainOf, type FetchTier } from '../stealth';
import { isHtmlPage, pageText } from '../page-fetch/page-text';
import type { TargetPage, TargetRequest } from './fetch-engine';
import { engineFor, FetchEngineSet, requestedTier } from './fetch-engine.router';
import { FetchRequestError } from '../fetch-requests/fetch-request.errors';
import { callerRequestHeaders } from './target-request-headers';

/** One request to the target, before the tier, proxy and identity of an attempt are known. */
export type TargetCall = Omit<TargetRequest, 'tier' | 'proxy' | 'identity'>;

/** Builds the target request for a URL, method, caller headers and body (deadline and caps included). */
export type TargetCallFactory = (
  url: string,
  method: TargetRequest['method'],
  headers: Record<string, string>,
  body?: Buffer,
) => TargetCall;

/**
 * The target calls of one Fetch request (the page, and a CAPTCHA answer's submission): the caller's
 * headers (the identity's browser adds its own), the request's options, at most `maxBodyBytes`, within what is left of
 * its deadline less `marginMs` (the answer's way back), stopped by `stop`, reading the bodies
 * `acceptBody` wants (default: all).
 */
export function targetCallsOf(
  request: FetchRequestV1,
  maxBodyBytes: number,
  marginMs: number,
  stop: AbortSignal,
  acceptBody?: TargetRequest['acceptBody'],
): TargetCallFactory {
  return (url, method, headers, payload) => ({
    tenantId: request.tenant_id,
    url,
    method,
    callerHeaders: callerRequestHeaders(headers, payload !== undefined),
    body: payload,
    options: request.options,
    maxBodyBytes,
    acceptBody,
    timeoutMs: Math.max(1, request.deadline_at - marginMs - Date.now()),
    signal: stop,
  });
}

export interface TargetFetcherDeps {
  engines: FetchEngineSet;
  /** The browser identities requests present (per session, or per tenant and domain). */
  identities: IdentityGenerator;
  captcha: CaptchaPass;
  /** Upstream proxy pools; without them every tier egresses directly. */
  proxies?: ProxyRouter;
  /** `mode=auto`; without it `mode=auto` fetches at the asked tier only. */
  stealth?: AdaptiveFetcher;
  /** Tells a challenge page from a real one (REQS002 on a tier asked for explicitly). */
  detector?: BlockDetector;
}

/**
 * Gets the target's page for a Fetch request: at the tier its options ask for, or with `mode=auto`
 * escalating through the tiers from the one remembered for the domain. Each attempt chooses its
 * upstream proxy (pool by tier and `proxy_country`, sticky `session_id`), fetches with the tier's
 * engine and, when the tenant has a CAPTCHA solver, gets past a challenge before the page is judged.
 */
export class TargetFetcher {
  private readonly detector: BlockDetector;

  constructor(private readonly deps: TargetFetcherDeps) {
    this.detector = deps.detector ?? new BlockDetector();
  }

  /**
   * @returns the page of the tier that served (its `tier` is the one to bill)
   * @throws FetchRequestError `REQS002` when the page is a challenge the tier could not pass (with
   *   `mode=auto`: no tier passed); StealthError, ProxyError, CaptchaError, EgressError for the
   *   caller to map; `stop`'s reason.
   */
  async fetch(request: FetchRequestV1, call: TargetCallFactory, stop: AbortSignal): Promise<TargetPage> {
    const { options } = request;
    const domain = stealthDomainOf(request.url);
    // One browser for every tier and attempt of the request: a site that sees the basic attempt and
    // the rendered one sees the same browser.
    const identity = this.deps.identities.identityFor({
      tenantId: request.tenant_id,
      sessionId: options.session_id,
      domain,
      device: options.device ?? 'desktop',
      country: options.proxy_country,
    });
    if (options.mode === 'auto' && this.deps.stealth) {
      const adaptive = await this.deps.stealth.fetch(
        domain,
        async (tier) => {
          const page = await this.attempt(request, call, tier as Tier, identity, stop);
          return {
            result: page,
            page: { status: page.status, contentType: page.contentType, html: observedHtml(page), headers: page.headers },
          };
        },
        // Only the premium pools have countries (fetch-details: proxy_country with mode=auto).
        { floor: options.proxy_country ? 'premium' : undefined, available: this.autoTiers(request), signal: stop },
      );
      return { ...adaptive.result, tier: adaptive.tier as Tier };
    }
    const tier = requestedTier(options);
    const page = await this.attempt(request, call, tier, identity, stop);
    // A tenant who asked for the target's own answer gets it, challenge or not.
    const asIs = options.original_status || options.allowed_status_codes?.includes(page.status);
    if (asIs || !this.isChallenge(page, tier)) return page;
    if (tier === Tier.PremiumJsRender) {
      // Nothing stronger to advise: the content could not be obtained.
      throw new FetchRequestError('RESP001', 'The target answered with an anti-bot challenge even to a rendered premium request.', {
        targetStatus: page.status,
      });
    }
    throw new FetchRequestError(
      'REQS002',
      'The target answered with an anti-bot challenge this configuration cannot pass; retry with js_render=true and/or premium_proxy=true, or mode=auto.',
      { targetStatus: page.status },
    );
  }

  /**
   * The tiers `mode=auto` may escalate to on this worker: a rendering tier only with a browser (else
   * it would end the request with ERR0001 instead of trying the next tier), a premium tier only with
   * a premium pool (premium through direct egress is the basic request again, billed 10 or 25
   * credits). With `proxy_country` the premium tiers stay: a missing country is the caller's REQS004.
   * Only tiers of the tenant's plan (`auto_tiers`) count.
   */
  private autoTiers(request: FetchRequestV1): FetchTier[] {
    const rendering = this.deps.engines.browser !== undefined;
    const premium = request.options.proxy_country !== undefined || (this.deps.proxies?.offersPremium() ?? false);
    const tiers: FetchTier[] = ['basic'];
    if (rendering) tiers.push('js_render');
    if (premium) tiers.push('premium');
    if (premium && rendering) tiers.push('premium_js_render');
    // The plan's tiers, from the gateway: a tenant without premium_proxy is never escalated (and billed) there.
    const plan = request.auto_tiers;
    return plan ? tiers.filter((tier) => plan.includes(tier)) : tiers;
  }

  private async attempt(
    request: FetchRequestV1,
    call: TargetCallFactory,
    tier: Tier,
    identity: BrowserIdentity,
    stop: AbortSignal,
  ): Promise<TargetPage> {
    const engine = engineFor(this.deps.engines, tier);
    const proxy = await this.deps.proxies?.choose({
      tier: tier as FetchTier,
      country: request.options.proxy_country,
      sessionId: request.options.session_id,
      tenantId: request.tenant_id,
    });
    const send = (target: TargetCall): Promise<TargetPage> => engine.fetch({ ...target, tier, proxy, identity });
    const page = await send(
      call(
        request.url,
        request.method,
        request.headers,
        request.body_base64 === undefined ? undefined : Buffer.from(request.body_base64, 'base64'),
      ),
    );
    const passed = await this.deps.captcha.pass(
      challenged(page),
      request.captcha_solver,
      (submission) => send(call(submission.url, submission.method, { ...request.headers, ...submission.headers }, submission.body)),
      challenged,
      request.deadline_at,
      stop,
    );
    return passed ?? page;
  }

  /**
   * A challenge interstitial on a tier asked for explicitly. Only content evidence counts here: a bare
   * 403 or 503 is the target's answer (RESP001, or passed through with original_status), and a page
   * that is empty without JavaScript is what the tenant asked for without js_render.
   */
  private isChallenge(page: TargetPage, tier: Tier): boolean {
    const html = observedHtml(page);
    // The status is set aside so that a 403 challenge is judged by its content (or its header).
    const rendered = tier === Tier.JsRender || tier === Tier.PremiumJsRender;
    return this.detector.isChallenge({ contentType: page.contentType ?? 'text/html', html, rendered, headers: page.headers });
  }
}

function observedHtml(page: TargetPage): string {
  return isHtmlPage(page) ? pageText(page) : '';
}

/** What the CAPTCHA step needs of a page. */
function challenged(page: TargetPage): ChallengedPage {
  return { finalUrl: page.finalUrl, html: isHtmlPage(page) ? pageText(page) : undefined };
}
