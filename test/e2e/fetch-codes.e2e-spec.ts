import { once } from 'node:events';
import { connect as netConnect } from 'node:net';
import { waitFor } from '@trawl/testing';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { freePort, Platform } from '../support/platform';
import { checkedFetch } from '../support/api-document';

interface FetchAnswer {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

/** A key of the right format (40 lowercase hex) that no tenant holds. */
const UNKNOWN_KEY = '0123456789abcdef'.repeat(3).slice(0, 40);
/** How long the slow page holds the only worker slot, in ms. */
const SLOW_MS = 4_000;

const basic = (userPass: string) => `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}`;

/**
 * Fetch API error codes end to end that no other suite answers through the public API: the gateway
 * and one fetch worker as processes (one Fetch request at a time, no browser), the fixture web, tenants
 * set up through the admin API. Every refusal is checked as a client sees it (status, problem+json
 * code, headers) and, where the target must not be asked, by the fixture web's hit count.
 */
describe('Fetch API error codes (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let proxyPort: number;
  let apiKey: string;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 1 });
    proxyPort = await freePort();
    platform = new Platform('fetch-codes', {
      hostMap: fixtureHostMap(),
      services: ['gateway', 'fetch-worker'],
      env: {
        gateway: {
          PROXY_MODE_PORT: String(proxyPort),
          // This suite is refused on purpose, often: its address must not be blocked (BLK0001).
          CLIENT_ERROR_MIN_REQUESTS: '1000000',
          // A busy worker is asked once more, not three times, before RESP009.
          FETCH_RPC_BUSY_RETRIES: '1',
        },
        // One request at a time: a slow page fills the worker.
        'fetch-worker': { FETCH_CONCURRENCY: '1', BROWSERS: '0' },
      },
    });
    await platform.start();
    apiKey = (await platform.createTenant()).api_key;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
  }, 60_000);

  /** One Fetch API call; `key` null sends no `apikey` at all. */
  async function fetchApi(params: Record<string, string>, init: RequestInit = {}, key: string | null = apiKey): Promise<FetchAnswer> {
    const query = new URLSearchParams({ ...(key !== null && { apikey: key }), ...params });
    const res = await checkedFetch(`${platform.gatewayUrl}/v1/?${query.toString()}`, init);
    const text = await res.text();
    return {
      status: res.status,
      headers: res.headers,
      body: /json/.test(res.headers.get('content-type') ?? '') ? JSON.parse(text) : { text },
    };
  }

  function expectProblem(answer: FetchAnswer, status: number, code: string): void {
    expect({ status: answer.status, type: answer.headers.get('content-type'), code: answer.body.code }).toEqual({
      status,
      type: expect.stringMatching(/^application\/problem\+json/),
      code,
    });
    expect(answer.body).toMatchObject({
      type: expect.stringContaining(code),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: expect.any(String),
    });
  }

  const credits = (answer: FetchAnswer) => Number(answer.headers.get('x-request-credits'));

  describe('REQS005', () => {
    it('answers 405 with Allow for a verb other than GET, POST and PUT, and asks nothing of the target', async () => {
      const path = '/echo/reqs005';
      const url = web.url('echo.test', path);
      const answers = await Promise.all(
        ['DELETE', 'PATCH', 'OPTIONS'].map((method) => fetchApi({ url }, { method, body: method === 'PATCH' ? 'a=1' : undefined })),
      );
      for (const answer of answers) {
        expectProblem(answer, 405, 'REQS005');
        expect(answer.headers.get('allow')).toBe('GET, POST, PUT');
        expect(answer.headers.get('x-request-credits')).toBe('0');
        // SDKs pace themselves by the concurrency headers, refusals included; a refused verb holds no slot.
        const limit = Number(answer.headers.get('concurrency-limit'));
        expect(limit).toBeGreaterThan(0);
        expect(answer.headers.get('concurrency-remaining')).toBe(String(limit));
      }
      // HEAD too (no body to read the code from): it does not fetch the page's headers.
      const head = await checkedFetch(`${platform.gatewayUrl}/v1/?${new URLSearchParams({ apikey: apiKey, url })}`, { method: 'HEAD' });
      expect({ status: head.status, allow: head.headers.get('allow'), type: head.headers.get('content-type') }).toEqual({
        status: 405,
        allow: 'GET, POST, PUT',
        type: expect.stringMatching(/^application\/problem\+json/),
      });
      expect(web.hits('echo.test', path)).toBe(0);
    });
  });

  describe('REQS004', () => {
    it('answers 400 naming the parameter for a bad value, a bad combination and an option that needs js_render, free, and asks nothing of the target', async () => {
      const path = '/echo/reqs004';
      const url = web.url('echo.test', path);
      const cases: [Record<string, string>, string, RegExp?][] = [
        [{ js_render: 'yes' }, 'js_render'],
        [{ js_render: 'true', wait: '30001' }, 'wait'],
        [{ outputs: 'emails,horoscopes' }, 'outputs'],
        [{ screenshot: 'true' }, 'screenshot', /js_render/],
        [{ js_render: 'true', response_type: 'pdf', json_response: 'true' }, 'json_response'],
      ];
      for (const [params, parameter, detail] of cases) {
        const answer = await fetchApi({ url, ...params });
        expectProblem(answer, 400, 'REQS004');
        expect({ params, parameter: answer.body.parameter }).toEqual({ params, parameter });
        if (detail) expect(answer.body.detail).toMatch(detail);
        expect(credits(answer)).toBe(0);
      }
      expect(web.hits('echo.test', path)).toBe(0);
    });
  });

  describe('REQS007', () => {
    it('answers 403 naming the domain for extract=auto on a domain not prepared, free, and asks nothing of the target', async () => {
      const answer = await fetchApi({ url: web.url('outputs.test', '/?reqs007'), extract: 'auto' });
      expectProblem(answer, 403, 'REQS007');
      expect(answer.body).toMatchObject({ domain: 'outputs.test', detail: expect.stringContaining('outputs.test') });
      expect(credits(answer)).toBe(0);
      expect(web.hits('outputs.test', '/?reqs007')).toBe(0);
    });
  });

  describe('AUTH001, AUTH002, AUTH003', () => {
    it.each([
      ['no key', 'AUTH001', null, {}],
      ['an empty apikey', 'AUTH001', '', {}],
      ['an apikey that is not a key', 'AUTH002', 'not-a-key', {}],
      ['an X-API-Key header that is not a key', 'AUTH002', null, { 'x-api-key': 'ABCDEF' }],
      ['a well-formed apikey no tenant holds', 'AUTH003', UNKNOWN_KEY, {}],
    ])('answers 401 %s with %s, and asks nothing of the target', async (what, code, key, headers) => {
      const path = `/echo/${code}-${what.replace(/\W+/g, '-')}`;
      const answer = await fetchApi({ url: web.url('echo.test', path) }, { headers }, key);
      expectProblem(answer, 401, code);
      expect(answer.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(web.hits('echo.test', path)).toBe(0);
    });
  });

  describe('AUTH007', () => {
    /** A plain (absolute-form, not CONNECT) HTTP request to proxy mode, as a proxy client sends it. */
    async function proxied(url: string, proxyAuthorization: string | undefined): Promise<FetchAnswer> {
      const socket = netConnect(proxyPort, '127.0.0.1');
      const auth = proxyAuthorization === undefined ? '' : `Proxy-Authorization: ${proxyAuthorization}\r\n`;
      socket.write(`GET ${url} HTTP/1.1\r\nHost: ${new URL(url).host}\r\n${auth}Connection: close\r\n\r\n`);
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      await once(socket, 'close');
      const raw = Buffer.concat(chunks).toString('utf8');
      const split = raw.indexOf('\r\n\r\n');
      const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
      const headers = new Headers(
        lines.map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]),
      );
      return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(raw.slice(split + 4)) as Record<string, any> };
    }

    it.each([
      ['without Proxy-Authorization', undefined],
      ['with a user that is not a key', basic('not-a-key:js_render=true')],
      ['with credentials that are not base64', 'Basic %%%'],
    ])('answers a plain proxied request %s with 407 and Proxy-Authenticate, and asks nothing of the target', async (what, header) => {
      const path = `/echo/auth007-${what.replace(/\W+/g, '-')}`;
      const answer = await proxied(web.url('echo.test', path), header);
      expectProblem(answer, 407, 'AUTH007');
      expect(answer.headers.get('proxy-authenticate')).toBe('Basic realm="trawl"');
      expect(web.hits('echo.test', path)).toBe(0);
    });

    it('serves the same request once the credentials are a key', async () => {
      const path = '/echo/auth007-then-served';
      const answer = await proxied(web.url('echo.test', path), basic(`${apiKey}:`));
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ method: 'GET', target: path });
    });
  });

  describe('AUTH009 to AUTH012', () => {
    it('answers the most basic problem of the account first, the next once it is fixed, and serves when none is left', async () => {
      const tenant = await platform.createTenant();
      await platform.patchTenant(tenant.tenant_id, {
        subscription_status: 'cancelled',
        email_verified: false,
        products: ['crawl'],
        features: [],
      });
      const path = '/echo/standing';
      const ask = () => fetchApi({ url: web.url('echo.test', path), premium_proxy: 'true' }, {}, tenant.api_key);

      // account-standing.ts: subscription, then e-mail, then product, then features.
      expectProblem(await ask(), 402, 'AUTH011');
      await platform.patchTenant(tenant.tenant_id, { subscription_status: 'active' });
      expectProblem(await ask(), 403, 'AUTH009');
      await platform.patchTenant(tenant.tenant_id, { email_verified: true });
      const product = await ask();
      expectProblem(product, 402, 'AUTH012');
      expect(product.body).toMatchObject({ product: 'fetch' });
      await platform.patchTenant(tenant.tenant_id, { products: ['crawl', 'fetch'] });
      const feature = await ask();
      expectProblem(feature, 402, 'AUTH010');
      expect(feature.body).toMatchObject({ feature: 'premium_proxy' });
      expect(web.hits('echo.test', path)).toBe(0);

      await platform.patchTenant(tenant.tenant_id, { features: ['premium_proxy'] });
      const served = await ask();
      expect(served.status).toBe(200);
      expect(credits(served)).toBe(10);
      expect(web.hits('echo.test', path)).toBe(1);
    });

    it('answers AUTH011 for a tenant that never subscribed, and AUTH010 naming js_render on a plan without it', async () => {
      const [never, noRender] = await Promise.all([platform.createTenant(), platform.createTenant()]);
      await Promise.all([
        platform.patchTenant(never.tenant_id, { subscription_status: 'none' }),
        platform.patchTenant(noRender.tenant_id, { features: ['premium_proxy', 'proxy_mode'] }),
      ]);
      const url = web.url('echo.test', '/echo/plan');
      const [unsubscribed, rendering] = await Promise.all([
        fetchApi({ url }, {}, never.api_key),
        fetchApi({ url, js_render: 'true' }, {}, noRender.api_key),
      ]);
      expectProblem(unsubscribed, 402, 'AUTH011');
      expectProblem(rendering, 402, 'AUTH010');
      expect(rendering.body).toMatchObject({ feature: 'js_render' });
      expect(web.hits('echo.test', '/echo/plan')).toBe(0);
    });
  });

  describe('RESP009', () => {
    it('answers 503 with a short Retry-After while the only worker is busy, free, and serves once it is not', async () => {
      const slowPath = `/slow/9?ms=${SLOW_MS}`;
      const held = fetchApi({ url: web.url('slow.test', slowPath) });
      await waitFor(() => web.hits('slow.test', slowPath) >= 1, { what: 'the slow page to hold the worker' });

      const path = '/echo/resp009-busy';
      const busy = await fetchApi({ url: web.url('echo.test', path) });
      expectProblem(busy, 503, 'RESP009');
      expect(Number(busy.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(busy.headers.get('retry-after'))).toBeLessThanOrEqual(5);
      expect(credits(busy)).toBe(0);
      expect(web.hits('echo.test', path)).toBe(0);

      expect((await held).status).toBe(200);
      // A client retrying as told is served.
      const retried = await waitFor(
        async () => {
          const answer = await fetchApi({ url: web.url('echo.test', path) });
          return answer.status === 200 ? answer : undefined;
        },
        { timeoutMs: 5_000, intervalMs: 200, what: 'the retry to be served' },
      );
      expect(retried.body).toMatchObject({ target: path });
    }, 30_000);

    it('answers 503 when no worker serves, and serves once one is back', async () => {
      await platform.kill('fetch-worker');
      try {
        const started = Date.now();
        const path = '/echo/resp009-none';
        const none = await fetchApi({ url: web.url('echo.test', path) });
        expectProblem(none, 503, 'RESP009');
        expect(Number(none.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        // Told at once, not after waiting for a worker to accept.
        expect(Date.now() - started).toBeLessThan(2_000);
        expect(web.hits('echo.test', path)).toBe(0);
      } finally {
        await platform.startService('fetch-worker');
      }
      await waitFor(async () => (await fetchApi({ url: web.url('echo.test', '/echo/resp009-back') })).status === 200, {
        timeoutMs: 10_000,
        intervalMs: 200,
        what: 'a worker to serve again',
      });
    }, 30_000);
  });
});
