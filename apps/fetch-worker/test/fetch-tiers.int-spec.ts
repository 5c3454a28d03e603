import pino from 'pino';
import { Registry } from 'prom-client';
import { FetchOptionsV1, FetchRequestV1 } from '@trawl/contracts';
import { uniqueSuffix } from '@trawl/testing';
import type { FixtureWeb } from '../../../test/fixtures/web';
import { EchoedRequest } from '../../../test/fixtures/web/sites/echo';
import { STEALTH_GUARDED_PATH, STEALTH_TEXTS } from '../../../test/fixtures/web/sites/stealth';
import { FetchRequestMetrics } from '../src/fetch-requests/fetch-request.metrics';
import { FetchAnswer, FetchRequestService } from '../src/fetch-requests/fetch-request.service';
import { extractionTransforms } from '../src/fetch-requests/extraction-transforms';
import { httpTierStack } from './support/http-tier-stack';

const TENANT_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';
const BASE_OPTIONS: FetchOptionsV1 = { js_render: false, premium_proxy: false, json_response: false, original_status: false };

/**
 * Tiers of the Fetch API on the HTTP engine against real things (see httpTierStack), the fixture
 * web's stealth sites among them. (Rendering tiers come with the browser engine.)
 */
describe('Fetch API tiers (HTTP engine)', () => {
  const stack = httpTierStack(
    'fetchtiers',
    ['standard', 'premium-a', 'premium-b', 'premium-us'],
    (proxies) =>
      `standard=${proxies.standard!.url};premium=${proxies['premium-a']!.url}|${proxies['premium-b']!.url};premium.us=${proxies['premium-us']!.url}`,
  );
  let web: FixtureWeb;
  let service: FetchRequestService;

  beforeAll(() => {
    web = stack.web;
    service = new FetchRequestService(
      stack.target,
      extractionTransforms,
      { maxBodyBytes: 1024 * 1024 },
      new FetchRequestMetrics(new Registry()),
      pino({ level: 'silent' }),
    );
  });

  function fetchRequest(url: string, options: Partial<FetchOptionsV1> = {}): FetchRequestV1 {
    return {
      v: 1,
      request_id: `req-${uniqueSuffix()}`,
      tenant_id: TENANT_ID,
      url,
      method: 'GET',
      headers: {},
      options: { ...BASE_OPTIONS, ...options },
      deadline_at: Date.now() + 20_000,
      max_body_bytes: 1024 * 1024,
    };
  }

  const send = (request: FetchRequestV1): Promise<FetchAnswer> => service.handle(request, new AbortController().signal);
  const via = async (options: Partial<FetchOptionsV1>) => {
    const answer = await send(fetchRequest(web.url('echo.test', '/echo'), options));
    return { answer, via: (JSON.parse(answer.body.toString('utf8')) as EchoedRequest).headers['x-fixture-via'] };
  };

  it('sends basic requests through the standard pool, billed basic', async () => {
    const { answer, via: proxy } = await via({});
    expect(proxy).toBe('standard');
    expect(answer.head.billed_tier).toBe('basic');
  });

  it('sends premium_proxy requests through the premium pool, billed premium', async () => {
    const { answer, via: proxy } = await via({ premium_proxy: true });
    expect(proxy).toMatch(/^premium-[ab]$/);
    expect(answer.head.billed_tier).toBe('premium');
  });

  it('sends proxy_country requests through that country’s pool, and answers REQS004 for a country without one', async () => {
    expect((await via({ premium_proxy: true, proxy_country: 'us' })).via).toBe('premium-us');
    const answer = await send(fetchRequest(web.url('echo.test', '/echo'), { premium_proxy: true, proxy_country: 'fr' }));
    expect(answer.head).toMatchObject({ status: 400, billed_tier: null, error: { code: 'REQS004' } });
    expect(answer.head.error?.detail).toContain('fr');
  });

  it('keeps a session_id on one premium proxy while requests without one rotate', async () => {
    const sticky = new Set<string>();
    const rotating = new Set<string>();
    for (let i = 0; i < 4; i++) sticky.add((await via({ premium_proxy: true, session_id: 4242 })).via);
    for (let i = 0; i < 4; i++) rotating.add((await via({ premium_proxy: true })).via);
    expect(sticky.size).toBe(1);
    expect(rotating).toEqual(new Set(['premium-a', 'premium-b']));
  });

  it('with mode=auto and a proxy_country, starts at premium and bills premium', async () => {
    // needs-premium.test refuses non-premium visitors; a country makes premium the floor (only
    // premium pools have countries), so no rendering tier is tried on this browserless worker.
    const answer = await send(fetchRequest(web.url('needs-premium.test', STEALTH_GUARDED_PATH), { mode: 'auto', proxy_country: 'us' }));
    expect(answer.head).toMatchObject({ status: 200, billed_tier: 'premium' });
    expect(answer.body.toString('utf8')).toContain(STEALTH_TEXTS.needsPremium);
  });

  it('answers REQS002 when a basic request meets a challenge page', async () => {
    const answer = await send(fetchRequest(web.url('needs-premium.test', STEALTH_GUARDED_PATH)));
    expect(answer.head).toMatchObject({ status: 400, billed_tier: null, error: { code: 'REQS002' }, target_status: 403 });
  });
});
