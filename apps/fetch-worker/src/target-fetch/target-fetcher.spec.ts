import { Tier } from '@trawl/billing';
import type { FetchOptionsV1, FetchRequestV1 } from '@trawl/contracts';
import type { CaptchaPass } from '../captcha/captcha-pass';
import { parseProxyPools, ProxyRouter } from '../proxies';
import { AdaptiveFetcher, type DomainTierMemory } from '../stealth';
import type { FetchEngine, TargetPage, TargetRequest } from './fetch-engine';
import { TargetCallFactory, TargetFetcher } from './target-fetcher';
import { testIdentities } from '../identity/identity.test-support';

const CHALLENGE = '<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>';
const OPTIONS: FetchOptionsV1 = { js_render: false, premium_proxy: false, json_response: false, original_status: false };

const request = (options: Partial<FetchOptionsV1> = {}): FetchRequestV1 => ({
  v: 1,
  request_id: 'r',
  tenant_id: '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d',
  url: 'http://shop.test/',
  method: 'GET',
  headers: {},
  options: { ...OPTIONS, ...options },
  deadline_at: Date.now() + 10_000,
  max_body_bytes: 1_000_000,
});

const call: TargetCallFactory = (url, method, headers, body) => ({
  tenantId: '00000000-0000-4000-8000-000000000001',
  url,
  method,
  headers,
  callerHeaders: headers,
  body,
  options: OPTIONS,
  maxBodyBytes: 1_000_000,
  timeoutMs: 10_000,
  signal: new AbortController().signal,
});

function engine(status: number, html: string): FetchEngine & { asked: TargetRequest[] } {
  const asked: TargetRequest[] = [];
  return {
    asked,
    fetch: async (target): Promise<TargetPage> => {
      asked.push(target);
      return { tier: target.tier, status, finalUrl: target.url, headers: {}, contentType: 'text/html', body: Buffer.from(html) };
    },
  };
}

const noCaptcha = { pass: async () => undefined } as unknown as CaptchaPass;
const fetcher = (http: FetchEngine, browser?: FetchEngine) =>
  new TargetFetcher({ engines: { http, browser }, identities: testIdentities, captcha: noCaptcha });
const stop = () => new AbortController().signal;

describe(TargetFetcher.name, () => {
  describe('fetch', () => {
    it('answers REQS002 for a challenge on a tier below premium js_render', async () => {
      await expect(fetcher(engine(403, CHALLENGE)).fetch(request(), call, stop())).rejects.toMatchObject({
        code: 'REQS002',
        targetStatus: 403,
      });
    });

    it('answers RESP001 for a challenge that even premium js_render met', async () => {
      const browser = engine(403, CHALLENGE);
      await expect(
        fetcher(engine(200, ''), browser).fetch(request({ js_render: true, premium_proxy: true }), call, stop()),
      ).rejects.toMatchObject({
        code: 'RESP001',
      });
      expect(browser.asked[0].tier).toBe(Tier.PremiumJsRender);
    });

    it('gives the challenge page as it is with original_status or an allowed status', async () => {
      expect((await fetcher(engine(403, CHALLENGE)).fetch(request({ original_status: true }), call, stop())).status).toBe(403);
      expect((await fetcher(engine(403, CHALLENGE)).fetch(request({ allowed_status_codes: [403] }), call, stop())).status).toBe(403);
    });

    it('does not judge a bare 403 or a page empty without JavaScript as a challenge', async () => {
      expect((await fetcher(engine(403, '<html><body><h1>Forbidden</h1></body></html>')).fetch(request(), call, stop())).status).toBe(403);
      const shell = '<html><body><div id="root"></div><noscript>enable JS</noscript><script>render()</script></body></html>';
      expect((await fetcher(engine(200, shell)).fetch(request(), call, stop())).status).toBe(200);
    });

    describe('with mode=auto', () => {
      const memory: DomainTierMemory = { recall: async () => undefined, remember: async () => undefined };
      const adaptive = (engines: { http: FetchEngine; browser?: FetchEngine }, pools = '') =>
        new TargetFetcher({
          engines,
          identities: testIdentities,
          captcha: noCaptcha,
          stealth: new AdaptiveFetcher({ memory }),
          proxies: new ProxyRouter(parseProxyPools(pools)),
        });
      const tiersAsked = (...engines: (FetchEngine & { asked: TargetRequest[] })[]) => engines.flatMap((e) => e.asked.map((a) => a.tier));

      it('does not escalate to premium without a premium pool: it would be the same request, billed 10', async () => {
        const http = engine(429, '<p>slow down</p>');
        const browser = engine(429, '<p>slow down</p>');
        await expect(adaptive({ http, browser }).fetch(request({ mode: 'auto' }), call, stop())).rejects.toMatchObject({
          code: 'all_tiers_blocked',
        });
        expect(tiersAsked(http, browser)).toEqual([Tier.Basic, Tier.JsRender]);
      });

      it('does not try a rendering tier on a worker without a browser, and goes on to premium', async () => {
        let calls = 0;
        const http: FetchEngine & { asked: TargetRequest[] } = {
          asked: [],
          fetch: async (target) => {
            http.asked.push(target);
            calls++;
            return {
              tier: target.tier,
              status: calls === 1 ? 403 : 200,
              finalUrl: target.url,
              headers: {},
              contentType: 'text/html',
              body: Buffer.from('<p>a page with enough words to be real</p>'),
            };
          },
        };
        const page = await adaptive({ http }, 'premium=http://premium.proxy.test:3128').fetch(request({ mode: 'auto' }), call, stop());
        expect(page.tier).toBe(Tier.Premium);
        expect(tiersAsked(http)).toEqual([Tier.Basic, Tier.Premium]);
      });

      it('escalates through every tier when the worker has a browser and a premium pool', async () => {
        const http = engine(403, CHALLENGE);
        const browser = engine(403, CHALLENGE);
        await expect(
          adaptive({ http, browser }, 'premium=http://premium.proxy.test:3128').fetch(request({ mode: 'auto' }), call, stop()),
        ).rejects.toMatchObject({
          code: 'all_tiers_blocked',
        });
        expect(tiersAsked(http, browser).sort()).toEqual([Tier.Basic, Tier.JsRender, Tier.Premium, Tier.PremiumJsRender].sort());
      });

      it("escalates only to the tiers of the tenant's plan (auto_tiers), and bills the one that served", async () => {
        const http = engine(403, CHALLENGE);
        const browser = engine(403, CHALLENGE);
        const pools = 'premium=http://premium.proxy.test:3128';
        const withoutRendering = { ...request({ mode: 'auto' }), auto_tiers: [Tier.Basic, Tier.Premium] };
        await expect(adaptive({ http, browser }, pools).fetch(withoutRendering, call, stop())).rejects.toMatchObject({
          code: 'all_tiers_blocked',
        });
        expect(tiersAsked(http, browser)).toEqual([Tier.Basic, Tier.Premium]);

        const rendered = engine(200, '<p>a page with enough words to be real</p>');
        const withoutPremium = { ...request({ mode: 'auto' }), auto_tiers: [Tier.Basic, Tier.JsRender] };
        expect((await adaptive({ http: engine(403, CHALLENGE), browser: rendered }, pools).fetch(withoutPremium, call, stop())).tier).toBe(
          Tier.JsRender,
        );
      });
    });

    it('fetches with mode=auto at the asked tier when adaptive stealth is not wired', async () => {
      const http = engine(200, '<p>ok</p>');
      expect((await fetcher(http).fetch(request({ mode: 'auto' }), call, stop())).tier).toBe(Tier.Basic);
    });
  });
});
