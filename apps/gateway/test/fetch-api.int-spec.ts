import { randomBytes } from 'node:crypto';
import { waitFor } from '@trawl/testing';
import { answer, gate, GatewayReplicas, json, startGatewayReplicas, TestWorker } from './fetch-harness';

const TARGET = 'http://shop.test/products?page=2';
const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

describe('Fetch API (gateway, with a test worker on NATS)', () => {
  let gw: GatewayReplicas;
  let worker: TestWorker;
  let base: string;

  beforeAll(async () => {
    gw = await startGatewayReplicas(1, {
      FETCH_FORBIDDEN_DOMAINS: 'forbidden.test',
      FETCH_CREDIT_PRICE_USD: '0.001',
      FETCH_MAX_BODY_BYTES: '5000000',
      SECRETS_KEY: randomBytes(32).toString('base64'),
    });
    base = gw.urls[0]!;
    worker = await TestWorker.start(gw.prefix);
  });

  afterAll(async () => {
    await worker?.close();
    await gw?.close();
  });

  beforeEach(() => {
    worker.requests.length = 0;
    worker.behaviour = async (request) => answer(request, { body: '<html>ok</html>' });
  });

  describe('GET /v1/', () => {
    it('sends the parsed options to a worker and answers with its page, Zr- headers, usage headers, and bills the tier', async () => {
      const tenant = await gw.createTenant({ concurrency: 3 });
      worker.behaviour = async (request) =>
        answer(request, {
          body: '<html>rendered</html>',
          billed_tier: 'js_render',
          headers: { 'Zr-Final-Url': request.url, 'Zr-Cookies': 'a=1', 'Set-Cookie': 'evil=1', 'X-Forged': 'no' },
        });
      const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET, js_render: 'true', wait: '500' })}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('<html>rendered</html>');
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('zr-final-url')).toBe(TARGET);
      expect(response.headers.get('zr-cookies')).toBe('a=1');
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(response.headers.get('x-forged')).toBeNull();
      expect(response.headers.get('concurrency-limit')).toBe('3');
      expect(response.headers.get('concurrency-remaining')).toBe('3');
      expect(response.headers.get('x-request-credits')).toBe('5');
      expect(response.headers.get('x-request-cost')).toBe('0.005');
      const requestId = response.headers.get('x-request-id');
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

      const [sent] = worker.requests;
      expect(sent).toMatchObject({
        v: 1,
        request_id: requestId,
        tenant_id: tenant.tenant_id,
        url: TARGET,
        method: 'GET',
        headers: {},
        options: { js_render: true, premium_proxy: false, wait: 500, json_response: false, original_status: false },
        max_body_bytes: 5_000_000,
      });
      expect(sent!.deadline_at - Date.now()).toBeGreaterThan(160_000);
      expect(sent!.body_base64).toBeUndefined();

      await gw.flushCharges();
      const { rows } = await gw.sql.query(
        `SELECT credits, product, tier, ref, cost_usd::float8 AS cost_usd FROM credit_ledger WHERE tenant_id = $1`,
        [tenant.tenant_id],
      );
      // The dollars at this moment's price (FETCH_CREDIT_PRICE_USD, 0.001 in this suite), kept with the row.
      expect(rows).toEqual([{ credits: 5, product: 'fetch', tier: 'js_render', ref: `fetch:${requestId}`, cost_usd: 0.005 }]);
      const { rows: used } = await gw.sql.query(`SELECT credits_used FROM tenants WHERE id = $1`, [tenant.tenant_id]);
      expect(Number(used[0].credits_used)).toBe(5);
    });

    it('answers on /v1 too, with the key in X-API-Key', async () => {
      const tenant = await gw.createTenant();
      const response = await fetch(`${base}/v1?${q({ url: TARGET })}`, { headers: { 'x-api-key': tenant.api_key } });
      expect(response.status).toBe(200);
      expect(worker.requests).toHaveLength(1);
    });

    it('passes a worker error answer through, free, with the usage headers', async () => {
      const tenant = await gw.createTenant();
      const problem = { type: 'x', title: 'Content not obtained', status: 422, detail: 'd', code: 'RESP001', instance: 'i' };
      worker.behaviour = async (request) =>
        answer(request, {
          status: 422,
          content_type: 'application/problem+json',
          billed_tier: null,
          error: { code: 'RESP001', detail: 'd' },
          body: JSON.stringify(problem),
        });
      const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect(response.status).toBe(422);
      expect(await json(response)).toEqual(problem);
      expect(response.headers.get('x-request-credits')).toBe('0');
      expect(response.headers.get('x-request-cost')).toBe('0');
      expect(response.headers.get('concurrency-limit')).toBe('5');
      await gw.flushCharges();
      const { rows } = await gw.sql.query(`SELECT count(*)::int AS n FROM credit_ledger WHERE tenant_id = $1`, [tenant.tenant_id]);
      expect(rows[0].n).toBe(0);
    });

    it('carries a body of several NATS messages whole', async () => {
      const tenant = await gw.createTenant();
      const big = Buffer.alloc(3 * 1024 * 1024, 'a');
      worker.behaviour = async (request) => answer(request, { body: big, content_type: 'text/plain' });
      const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect(Buffer.from(await response.arrayBuffer()).equals(big)).toBe(true);
    });
  });

  describe('POST and PUT', () => {
    it('forwards the body with its content type, and the form type when none is given', async () => {
      const tenant = await gw.createTenant();
      const json = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"q":"shoes"}',
      });
      expect(json.status).toBe(200);
      const put = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, {
        method: 'PUT',
        body: new Uint8Array(Buffer.from('a=1&b=2')),
      });
      expect(put.status).toBe(200);
      const form = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1&b=2',
      });
      expect(form.status).toBe(200);
      const [first, second, third] = worker.requests;
      expect(first).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/json' } });
      expect(Buffer.from(first!.body_base64!, 'base64').toString()).toBe('{"q":"shoes"}');
      expect(second).toMatchObject({ method: 'PUT' });
      expect(Buffer.from(second!.body_base64!, 'base64').toString()).toBe('a=1&b=2');
      expect(third).toMatchObject({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    });

    it('forwards a text body byte for byte, whatever its type and charset', async () => {
      const tenant = await gw.createTenant();
      // "café" in windows-1252: 0xe9 alone is not UTF-8.
      const latin = Buffer.from([0x63, 0x61, 0x66, 0xe9]);
      for (const type of ['text/plain; charset=windows-1252', 'text/csv; charset=windows-1252']) {
        const answer = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, {
          method: 'POST',
          headers: { 'content-type': type },
          body: new Uint8Array(latin),
        });
        expect({ type, status: answer.status }).toEqual({ type, status: 200 });
        const sent = worker.requests.at(-1);
        expect(sent).toMatchObject({ method: 'POST', headers: { 'content-type': type } });
        expect(Buffer.from(sent!.body_base64!, 'base64')).toEqual(latin);
      }
    });

    it('forwards the caller headers with custom_headers=true, never its key or hop-by-hop headers', async () => {
      const tenant = await gw.createTenant();
      await fetch(`${base}/v1/?${q({ url: TARGET, custom_headers: 'true' })}`, {
        headers: { 'x-api-key': tenant.api_key, 'user-agent': 'MyBot/2', referer: 'https://example.test/' },
      });
      const headers = worker.requests[0]!.headers;
      expect(headers).toMatchObject({ 'user-agent': 'MyBot/2', referer: 'https://example.test/' });
      expect(headers).not.toHaveProperty('x-api-key');
      expect(headers).not.toHaveProperty('host');
      expect(headers).not.toHaveProperty('connection');
    });
  });

  describe('refusals', () => {
    it('answers another verb with 405 REQS005 and Allow', async () => {
      const tenant = await gw.createTenant();
      const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`, { method: 'DELETE' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, POST, PUT');
      expect(await json(response)).toMatchObject({ code: 'REQS005', status: 405 });
      expect(worker.requests).toHaveLength(0);
    });

    it.each([
      ['an unknown parameter', { colour: 'red' }, 400, 'REQS004', 'colour'],
      ['wait without js_render', { wait: '100' }, 400, 'REQS004', 'js_render=true'],
      ['a bad css_extractor', { css_extractor: '[1]' }, 400, 'RESP004', 'css_extractor'],
      ['a forbidden domain', { url: 'https://www.forbidden.test/' }, 400, 'REQS001', 'forbidden.test'],
      ['extract=auto', { extract: 'auto' }, 403, 'REQS007', 'shop.test'],
      ['autoparse=true', { autoparse: 'true' }, 403, 'REQS007', 'shop.test'],
    ])('refuses %s as problem+json with the usage headers', async (_what, params, status, code, words) => {
      const tenant = await gw.createTenant({ concurrency: 4 });
      const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET, ...params })}`);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      const body = await json(response);
      expect(body).toEqual({
        type: expect.stringContaining(code),
        title: expect.any(String),
        status,
        detail: expect.stringContaining(words),
        code,
        instance: expect.stringMatching(/^urn:trawl:request:/),
        ...(body.parameter !== undefined && { parameter: body.parameter }),
        ...(body.domain !== undefined && { domain: body.domain }),
      });
      expect(response.headers.get('concurrency-limit')).toBe('4');
      expect(response.headers.get('concurrency-remaining')).toBe('4');
      expect(response.headers.get('x-request-cost')).toBe('0');
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(worker.requests).toHaveLength(0);
    });

    it('refuses a missing or unknown key with AUTH001/AUTH003 and a request id', async () => {
      const missing = await fetch(`${base}/v1/?${q({ url: TARGET })}`);
      expect(missing.status).toBe(401);
      expect((await json(missing)).code).toBe('AUTH001');
      expect(missing.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      const unknown = await fetch(`${base}/v1/?${q({ url: TARGET, apikey: '0'.repeat(40) })}`);
      expect((await json(unknown)).code).toBe('AUTH003');
    });
  });

  describe('accounts', () => {
    it.each([
      ['no credits left', { credits: 0 }, {}, 402, 'AUTH004'],
      ['fewer credits than the tier costs', { credits: 4 }, { js_render: 'true' }, 402, 'AUTH004'],
      ['a feature outside the plan', { features: ['premium_proxy'] }, { js_render: 'true' }, 402, 'AUTH010'],
      [
        'mode=auto with a proxy country outside the plan',
        { features: ['js_render'] },
        { mode: 'auto', proxy_country: 'de' },
        402,
        'AUTH010',
      ],
      ['a plan without fetch', { products: ['crawl'] }, {}, 402, 'AUTH012'],
      ['a cancelled subscription', { subscription_status: 'cancelled' }, {}, 402, 'AUTH011'],
      ['an unverified e-mail', { email_verified: false }, {}, 403, 'AUTH009'],
      ['an expired key', { api_key_expires_at: '2020-01-01T00:00:00Z' }, {}, 402, 'AUTH005'],
    ])('refuses %s', async (_what, fields, params, status, code) => {
      const tenant = await gw.createTenant(fields);
      const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET, ...params })}`);
      expect(response.status).toBe(status);
      expect((await json(response)).code).toBe(code);
      expect(worker.requests).toHaveLength(0);
    });

    it("serves mode=auto on a plan without premium_proxy, telling the worker the plan's tiers", async () => {
      const tenant = await gw.createTenant({ features: ['js_render'] });
      const response = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET, mode: 'auto' })}`);
      expect(response.status).toBe(200);
      expect(worker.requests.map((request) => request.auto_tiers)).toEqual([['basic', 'js_render']]);
    });

    it('sets plan, standing and key expiry with PATCH, and starts refusing at once', async () => {
      const tenant = await gw.createTenant();
      const ok = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect(ok.status).toBe(200);
      await gw.flushCharges();
      const patched = await gw.patchTenant(tenant.tenant_id, { api_key_expires_at: new Date(Date.now() - 1000).toISOString(), credits: 7 });
      expect(patched.status).toBe(200);
      expect(await json(patched)).toMatchObject({ credits: 7, credits_used: 1, credits_left: 6 });
      const expired = await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect((await json(expired)).code).toBe('AUTH005');
      expect((await gw.patchTenant('00000000-0000-4000-8000-000000000000', { credits: 1 })).status).toBe(404);
      expect((await gw.patchTenant(tenant.tenant_id, { plan: 'gold' })).status).toBe(400);
    });

    it('passes the CAPTCHA solver to the worker and never shows its key', async () => {
      const tenant = await gw.createTenant({ captcha_solver: { endpoint: 'http://solver.test/', key: 'solver-secret-1' } });
      expect(tenant.captcha_solver).toEqual({ endpoint: 'http://solver.test/', key_configured: true });
      expect(JSON.stringify(tenant)).not.toContain('solver-secret-1');
      await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect(worker.requests[0]!.captcha_solver).toEqual({ endpoint: 'http://solver.test/', key: 'solver-secret-1' });
      const removed = await gw.patchTenant(tenant.tenant_id, { captcha_solver: null });
      expect((await json(removed)).captcha_solver).toBeNull();
    });

    it('lets a tenant set, read and remove its own CAPTCHA solver, never showing the key', async () => {
      const tenant = await gw.createTenant();
      const other = await gw.createTenant();
      const solverUrl = `${base}/v1/subscriptions/self/captcha_solver`;
      const as = (key: string, init: RequestInit = {}) =>
        fetch(solverUrl, { ...init, headers: { 'x-api-key': key, 'content-type': 'application/json' } });
      const put = await as(tenant.api_key, {
        method: 'PUT',
        body: JSON.stringify({ endpoint: 'https://solver.test/api', key: 'tenant-own-key' }),
      });
      expect(put.status).toBe(200);
      const shown = await json(put);
      expect(shown).toEqual({ captcha_solver: { endpoint: 'https://solver.test/api', key_configured: true } });
      expect(JSON.stringify(shown)).not.toContain('tenant-own-key');
      expect(await json(await as(tenant.api_key))).toEqual(shown);
      expect(await json(await as(other.api_key))).toEqual({ captcha_solver: null });

      const before = worker.requests.length;
      await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      expect(worker.requests[before]!.captcha_solver).toEqual({ endpoint: 'https://solver.test/api', key: 'tenant-own-key' });

      const bad = await as(tenant.api_key, { method: 'PUT', body: JSON.stringify({ endpoint: 'ftp://solver.test/', key: '' }) });
      expect(bad.status).toBe(422);
      expect(JSON.stringify(await json(bad))).toContain('endpoint');
      expect((await as(tenant.api_key, { method: 'DELETE' })).status).toBe(204);
      expect(await json(await as(tenant.api_key))).toEqual({ captcha_solver: null });
      // A request that starts before its admission returns (head start) uses the account as the
      // previous admission read it: the removal applies from the request after.
      await waitFor(
        async () => {
          await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
          return worker.requests.at(-1)!.captcha_solver === undefined;
        },
        { timeoutMs: 5_000, what: 'requests without the removed solver' },
      );
    });

    it('refuses to start a crawl without the product or credits, and still lists crawls', async () => {
      const noCrawl = await gw.createTenant({ products: ['fetch'] });
      const start = (key: string) =>
        fetch(`${base}/v1/crawls`, {
          method: 'POST',
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: JSON.stringify({ url: 'http://shop.test/' }),
        });
      expect((await json(await start(noCrawl.api_key))).code).toBe('AUTH012');
      const broke = await gw.createTenant({ credits: 0 });
      expect((await json(await start(broke.api_key))).code).toBe('AUTH004');
      const list = await fetch(`${base}/v1/crawls`, { headers: { 'x-api-key': broke.api_key } });
      expect(list.status).toBe(200);
    });
  });

  describe('GET /v1/subscriptions/self/details', () => {
    it('reports usage, period and concurrency in use, without taking a slot', async () => {
      const tenant = await gw.createTenant({ credits: 200, concurrency: 1, rate_limit_per_minute: 100 });
      const release = gate();
      worker.behaviour = async (request) => {
        await release.wait;
        return answer(request, { billed_tier: 'premium_js_render' });
      };
      const inFlight = fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET, js_render: 'true', premium_proxy: 'true' })}`);
      await waitFor(() => worker.inFlight() === 1, { what: 'the request to reach the worker' });
      const during = await fetch(`${base}/v1/subscriptions/self/details`, { headers: { 'x-api-key': tenant.api_key } });
      expect(during.status).toBe(200);
      expect(await json(during)).toMatchObject({ concurrency_limit: 1, concurrency_in_use: 1, concurrency_remaining: 0 });
      release.open();
      expect((await inFlight).status).toBe(200);
      const after = await json(await fetch(`${base}/v1/subscriptions/self/details`, { headers: { 'x-api-key': tenant.api_key } }));
      expect(after).toEqual({
        usage_percent: 12.5,
        period_started_at: expect.any(String),
        period_ends_at: tenant.period_ends_at,
        credits_total: 200,
        credits_used: 25,
        credits_left: 175,
        concurrency_limit: 1,
        concurrency_in_use: 0,
        concurrency_remaining: 1,
        rate_limit_per_minute: 100,
        subscription_status: 'active',
        features: ['js_render', 'premium_proxy', 'proxy_mode'],
        products: ['fetch', 'crawl', 'batch', 'extract'],
        active_jobs: 0,
        max_active_jobs: 3,
      });
    });

    it('renews an ended period: credits_used back to 0 and the next end one period later', async () => {
      const tenant = await gw.createTenant({ credits: 10, period_days: 30 });
      await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      const ended = new Date(Date.now() - 86_400_000);
      await gw.patchTenant(tenant.tenant_id, { period_ends_at: ended.toISOString() });
      const details = await json(await fetch(`${base}/v1/subscriptions/self/details`, { headers: { 'x-api-key': tenant.api_key } }));
      expect(details.credits_used).toBe(0);
      expect(Date.parse(details.period_started_at)).toBe(ended.getTime());
      expect(Date.parse(details.period_ends_at)).toBe(ended.getTime() + 30 * 86_400_000);
    });
  });

  describe('metrics', () => {
    it('counts answers by code and tier', async () => {
      const tenant = await gw.createTenant();
      await fetch(`${base}/v1/?${q({ apikey: tenant.api_key, url: TARGET })}`);
      const text = await (await fetch(`${gw.adminUrls[0]}/metrics`)).text();
      expect(text).toMatch(/trawl_fetch_requests_total\{code="OK",tier="basic"[^}]*\} [1-9]/);
      expect(text).toMatch(/trawl_fetch_requests_total\{code="REQS004",tier="none"[^}]*\} [1-9]/);
      expect(text).toContain('trawl_fetch_request_duration_seconds_bucket');
      expect(text).toContain('trawl_fetch_slots_in_use');
    });
  });
});
