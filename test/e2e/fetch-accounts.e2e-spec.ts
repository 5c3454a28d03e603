import { waitFor } from '@trawl/testing';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { Platform } from '../support/platform';
import { checkedFetch } from '../support/api-document';

/** The gateway's block of a client address lasts this long here (CLIENT_BLOCK_SECONDS). */
const BLOCK_SECONDS = 3;
/** Requests of an address in the window before its error rate may block it (CLIENT_ERROR_MIN_REQUESTS). */
const ERROR_MIN_REQUESTS = 40;

interface FetchAnswer {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

/**
 * The gateway's account and limit codes end to end: gateway and fetch worker as processes, the
 * fixture web, tenants set up through the admin API, and only the public API. BLK0001 blocks the
 * suite's own address, so it comes last.
 */
describe('Fetch API accounts and limits (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 1 });
    platform = new Platform('fetch-accounts', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'fetch-worker'],
      env: {
        gateway: {
          PROXY_MODE_ENABLED: 'false',
          FETCH_FORBIDDEN_DOMAINS: 'forbidden.test',
          CLIENT_ERROR_MIN_REQUESTS: String(ERROR_MIN_REQUESTS),
          CLIENT_ERROR_RATE_PERCENT: '80',
          CLIENT_BLOCK_SECONDS: String(BLOCK_SECONDS),
          CLIENT_BLOCK_CACHE_MS: '0',
          CLIENT_HEALTH_FLUSH_MS: '0',
          // A lost worker is noticed in 5 s, not 10 (workers beat every 2 s).
          FETCH_RPC_SILENCE_TIMEOUT_MS: '5000',
        },
      },
    });
    await platform.start();
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  async function fetchApi(key: string, url: string, init: RequestInit = {}): Promise<FetchAnswer> {
    const res = await checkedFetch(`${platform.gatewayUrl}/v1/?${new URLSearchParams({ apikey: key, url })}`, init);
    const text = await res.text();
    let body: Record<string, any> = {};
    if (/json/.test(res.headers.get('content-type') ?? '')) body = JSON.parse(text);
    return { status: res.status, headers: res.headers, body };
  }

  function expectProblem(answer: FetchAnswer, status: number, code: string): void {
    expect({ status: answer.status, code: answer.body.code, type: answer.headers.get('content-type') }).toEqual({
      status,
      code,
      type: expect.stringMatching(/^application\/problem\+json/),
    });
  }

  const page = () => web.url('echo.test', '/html');

  it('answers AUTH004 once the period’s credits are spent', async () => {
    const tenant = await platform.createTenant({ credits: 1 });
    expect((await fetchApi(tenant.api_key, page())).status).toBe(200);
    expectProblem(await fetchApi(tenant.api_key, page()), 402, 'AUTH004');
  });

  it('answers AUTH005 for an expired key', async () => {
    const tenant = await platform.createTenant();
    await platform.patchTenant(tenant.tenant_id, { api_key_expires_at: new Date(Date.now() - 1_000).toISOString() });
    expectProblem(await fetchApi(tenant.api_key, page()), 402, 'AUTH005');
  });

  it.each([
    ['AUTH009', 403, { email_verified: false }, {}],
    ['AUTH010', 402, { features: [] }, { js_render: 'true' }],
    ['AUTH011', 402, { subscription_status: 'cancelled' }, {}],
    ['AUTH012', 402, { products: ['crawl'] }, {}],
  ])('answers %s from the plan or standing set by the admin API', async (code, status, settings, options) => {
    const tenant = await platform.createTenant();
    await platform.patchTenant(tenant.tenant_id, settings);
    const res = await checkedFetch(
      `${platform.gatewayUrl}/v1/?${new URLSearchParams({ apikey: tenant.api_key, url: page(), ...options })}`,
    );
    const body = (await res.json()) as { code?: string };
    expect({ status: res.status, code: body.code }).toEqual({ status, code });
  });

  it('answers AUTH008 past the rate limit, with Retry-After', async () => {
    const tenant = await platform.createTenant({ rate_limit_per_minute: 2 });
    // The window is the calendar minute: when the requests straddle its end, the count starts over
    // once, so the refusal comes after 2 to 4 answers, never later.
    const served: number[] = [];
    let limited = await fetchApi(tenant.api_key, page());
    while (limited.status === 200 && served.length < 4) {
      served.push(limited.status);
      limited = await fetchApi(tenant.api_key, page());
    }
    expect(served.length).toBeGreaterThanOrEqual(2);
    expectProblem(limited, 429, 'AUTH008');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('answers REQS001 for a domain the operator forbids, subdomains included', async () => {
    const tenant = await platform.createTenant();
    expectProblem(await fetchApi(tenant.api_key, 'http://forbidden.test/'), 400, 'REQS001');
    expectProblem(await fetchApi(tenant.api_key, 'http://www.forbidden.test/a'), 400, 'REQS001');
  });

  it('answers AUTH006 while the concurrency is full, and serves again once the slow page is done', async () => {
    const tenant = await platform.createTenant({ concurrency: 1 });
    const slow = fetchApi(tenant.api_key, web.url('slow.test', '/slow/1?ms=2000'));
    await waitFor(() => web.hits('slow.test', '/slow/1?ms=2000') >= 1, { timeoutMs: 10_000, what: 'the slow page to be requested' });
    const full = await fetchApi(tenant.api_key, page());
    expectProblem(full, 429, 'AUTH006');
    expect(full.headers.get('concurrency-remaining')).toBe('0');
    const slowAnswer = await slow;
    expect({ status: slowAnswer.status, body: slowAnswer.body }).toMatchObject({ status: 200 });
    expect((await fetchApi(tenant.api_key, page())).status).toBe(200);
  }, 30_000);

  it('answers ERR0001 quickly, with Retry-After, when the worker is killed mid-request, and frees the slot', async () => {
    const tenant = await platform.createTenant({ concurrency: 1 });
    const started = Date.now();
    // With a body: never sent twice, so a lost worker's request is answered ERR0001 however early
    // it died (a GET whose worker died before accepting it is asked of another worker instead).
    const inFlight = fetchApi(tenant.api_key, web.url('slow.test', '/slow/2?ms=30000'), { method: 'POST', body: 'order=1' });
    await waitFor(() => web.hits('slow.test', '/slow/2?ms=30000') >= 1, { timeoutMs: 10_000, what: 'the slow page to be requested' });
    await platform.kill('fetch-worker', 'SIGKILL');
    const lost = await inFlight;
    expectProblem(lost, 500, 'ERR0001');
    expect(Number(lost.headers.get('retry-after'))).toBeGreaterThanOrEqual(10);
    expect(Date.now() - started).toBeLessThan(15_000);
    await platform.startService('fetch-worker');
    // The slot was freed: the tenant's one slot serves the next request.
    await waitFor(async () => (await fetchApi(tenant.api_key, page())).status === 200, {
      timeoutMs: 20_000,
      intervalMs: 200,
      what: 'a request to be served again',
    });
  }, 60_000);

  // Last: it blocks this suite's own address.
  it('answers BLK0001 to an address whose error rate passes the threshold, until the block ends', async () => {
    const tenant = await platform.createTenant();
    let blocked: FetchAnswer | undefined;
    for (let i = 0; i < ERROR_MIN_REQUESTS * 2 && !blocked; i++) {
      const answer = await fetchApi('not-a-key', page());
      if (answer.body.code === 'BLK0001') blocked = answer;
    }
    expect(blocked).toBeDefined();
    expectProblem(blocked!, 403, 'BLK0001');
    // Even a good key is refused from this address while the block lasts.
    expectProblem(await fetchApi(tenant.api_key, page()), 403, 'BLK0001');
    await waitFor(async () => (await fetchApi(tenant.api_key, page())).status === 200, {
      timeoutMs: (BLOCK_SECONDS + 5) * 1_000,
      intervalMs: 250,
      what: 'the block to end',
    });
  }, 30_000);
});
