import pino from 'pino';
import { Registry } from 'prom-client';
import { FetchOptionsV1, FetchRequestV1 } from '@trawl/contracts';
import { createEgressAgent, EgressPolicy, parseHostMap } from '@trawl/egress';
import { deleteStreams, MessagingConnection } from '@trawl/messaging';
import { uniqueSuffix } from '@trawl/testing';
import { closeAll, FixtureProxy, startFixtureProxies } from '../../../test/fixtures/proxies';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../../../test/fixtures/web';
import { EchoedRequest } from '../../../test/fixtures/web/sites/echo';
import { STEALTH_GUARDED_PATH, STEALTH_TEXTS } from '../../../test/fixtures/web/sites/stealth';
import { CaptchaPass } from '../src/captcha/captcha-pass';
import { CaptchaSolverClient } from '../src/captcha/captcha-solver.client';
import { FetchRequestMetrics } from '../src/fetch-requests/fetch-request.metrics';
import { FetchAnswer, FetchRequestService } from '../src/fetch-requests/fetch-request.service';
import { extractionTransforms } from '../src/fetch-requests/extraction-transforms';
import { HttpFetchEngine } from '../src/fetch-requests/http-fetch-engine';
import { TargetFetcher } from '../src/fetch-requests/target-fetcher';
import { HttpEngine } from '../src/page-fetch/http-engine';
import { NatsSessionBindings, parseProxyPools, ProxyRouter, UpstreamAgents } from '../src/proxies';
import { AdaptiveFetcher, NatsDomainTierMemory } from '../src/stealth';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const TENANT_ID = '9a8b7c6d-5e4f-4a3b-9c2d-1e0f2a3b4c5d';
const BASE_OPTIONS: FetchOptionsV1 = { js_render: false, premium_proxy: false, json_response: false, original_status: false };

/**
 * Tiers of the Fetch API on the HTTP engine against real things: fixture forward proxies as the
 * upstream pools, session bindings and adaptive stealth's memory in NATS KV, the fixture web's
 * stealth sites. (Rendering tiers come with the browser engine.)
 */
describe('Fetch API tiers (HTTP engine)', () => {
  let web: FixtureWeb;
  let proxies: Record<string, FixtureProxy>;
  let messaging: MessagingConnection;
  let http: HttpEngine;
  let upstream: UpstreamAgents;
  let service: FetchRequestService;
  const buckets = [`fetchtiers${uniqueSuffix()}_sessions`, `fetchtiers${uniqueSuffix()}_tiers`];

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    proxies = await startFixtureProxies(['standard', 'premium-a', 'premium-b', 'premium-us']);
    messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'fetch-tiers-int' });
    const policy = new EgressPolicy({ hostMap: parseHostMap(fixtureHostMap()) });
    const agent = createEgressAgent(policy);
    http = new HttpEngine({ policy, agent, maxBodyBytes: 1024 * 1024 });
    upstream = new UpstreamAgents(policy);
    const pools = parseProxyPools(
      `standard=${proxies.standard.url};premium=${proxies['premium-a'].url}|${proxies['premium-b'].url};premium.us=${proxies['premium-us'].url}`,
    );
    const proxyRouter = new ProxyRouter(pools, await NatsSessionBindings.open(messaging.js, buckets[0], 60_000));
    const stealth = new AdaptiveFetcher({ memory: await NatsDomainTierMemory.open(messaging.js, buckets[1], 60_000) });
    const captcha = new CaptchaPass(new CaptchaSolverClient({ policy, agent }));
    service = new FetchRequestService(
      new TargetFetcher({ engines: { http: new HttpFetchEngine(http, upstream) }, captcha, proxies: proxyRouter, stealth }),
      extractionTransforms,
      { maxBodyBytes: 1024 * 1024 },
      new FetchRequestMetrics(new Registry()),
      pino({ level: 'silent' }),
    );
  });

  afterAll(async () => {
    await upstream?.close();
    await http?.close();
    await closeAll(proxies ?? {});
    await web?.close();
    if (messaging) {
      await deleteStreams(messaging.jsm, buckets.map((bucket) => `KV_${bucket}`));
      await messaging.close();
    }
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
