import { ADMIN_TOKEN, startTestGateway, TestGateway } from './gateway-harness';

describe('Gateway admin API and authentication', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    // A zero cache TTL makes revocation and expiry visible at once.
    gw = await startTestGateway({ API_KEY_CACHE_TTL_MS: '0' });
  });

  afterAll(async () => {
    await gw?.close();
  });

  describe('POST /admin/v1/tenants', () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

    it('creates a tenant with the defaults and a key shown once', async () => {
      const before = Date.now();
      const response = await gw.request('POST', '/admin/v1/tenants', { headers: admin });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({
        tenant_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        api_key: expect.stringMatching(/^[0-9a-f]{40}$/),
        credits: 1_000_000,
        concurrency: 5,
        max_active_jobs: 3,
      });
      const periodEnd = Date.parse(response.body.period_ends_at);
      expect(periodEnd - before).toBeGreaterThan(29.9 * 86_400_000);
      expect(periodEnd - before).toBeLessThan(30.1 * 86_400_000);
      const { rows } = await gw.sql.query(`SELECT key_hash, key_hint FROM api_keys WHERE tenant_id = $1`, [response.body.tenant_id]);
      expect(rows).toHaveLength(1);
      expect(rows[0].key_hash.toString('hex')).not.toContain(response.body.api_key);
      expect(rows[0].key_hint).toBe(`…${response.body.api_key.slice(-4)}`);
    });

    it('takes the fields it is given', async () => {
      const response = await gw.request('POST', '/admin/v1/tenants', {
        headers: admin,
        body: { name: 'Acme', credits: 50, concurrency: 2, max_active_jobs: 1 },
      });
      expect(response.status).toBe(201);
      expect(response.body).toMatchObject({ name: 'Acme', credits: 50, concurrency: 2, max_active_jobs: 1 });
    });

    it.each([
      ['no token', {}],
      ['a wrong token', { authorization: 'Bearer not-the-admin-token' }],
      ['the token without Bearer', { authorization: ADMIN_TOKEN }],
    ])('answers 401 problem for %s', async (_what, headers) => {
      const response = await gw.request('POST', '/admin/v1/tenants', { headers, body: {} });
      expect(response.status).toBe(401);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body).toMatchObject({ status: 401, code: 'unauthorized' });
    });

    it.each([
      [{ plan: 'gold' }, 400, 'unknown_parameter', 'plan'],
      [{ credits: 'lots' }, 400, 'invalid_parameter', 'credits'],
      [{ max_active_jobs: 0 }, 422, 'invalid_parameter', 'max_active_jobs'],
    ])('refuses %j with %i %s', async (body, status, code, parameter) => {
      const response = await gw.request('POST', '/admin/v1/tenants', { headers: admin, body });
      expect(response.status).toBe(status);
      expect(response.body).toMatchObject({ code, parameter });
      expect(response.body.detail).toContain(parameter);
    });
  });

  describe('API key authentication', () => {
    it('accepts the key in X-API-Key and in the apikey query parameter', async () => {
      const tenant = await gw.createTenant();
      expect((await gw.request('GET', '/v1/crawls', { key: tenant.api_key })).status).toBe(200);
      expect((await gw.request('GET', `/v1/crawls?apikey=${tenant.api_key}`)).status).toBe(200);
    });

    it.each([
      ['no key', 401, 'AUTH001', {}],
      ['an empty key', 401, 'AUTH001', { key: '' }],
      ['a key of the wrong format', 401, 'AUTH002', { key: 'not-a-key' }],
      ['an unknown key', 401, 'AUTH003', { key: 'ab'.repeat(20) }],
    ])('refuses %s with %i %s', async (_what, status, code, options) => {
      const response = await gw.request('GET', '/v1/crawls', options);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String) });
      expect(response.body.instance).toMatch(/^urn:trawl:request:/);
    });

    it('refuses a malformed apikey query parameter with AUTH002', async () => {
      const response = await gw.request('GET', '/v1/crawls?apikey=XYZ');
      expect(response.body.code).toBe('AUTH002');
    });

    it('authenticates before reading the body: no key and bad JSON is a 401', async () => {
      const response = await gw.request('POST', '/v1/crawls', { rawBody: '{nope', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe('AUTH001');
    });

    it('refuses a revoked key with AUTH003 and an expired key with 402 AUTH005', async () => {
      const revoked = await gw.createTenant();
      await gw.sql.query(`UPDATE api_keys SET revoked_at = now() WHERE tenant_id = $1`, [revoked.tenant_id]);
      expect((await gw.request('GET', '/v1/crawls', { key: revoked.api_key })).body.code).toBe('AUTH003');

      const expired = await gw.createTenant();
      await gw.sql.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE tenant_id = $1`, [expired.tenant_id]);
      const response = await gw.request('GET', '/v1/crawls', { key: expired.api_key });
      expect(response.status).toBe(402);
      expect(response.body.code).toBe('AUTH005');
    });
  });

  describe('framework errors', () => {
    it('answers an unknown route with a 404 problem', async () => {
      const response = await gw.request('GET', '/nowhere?apikey=secret');
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body).toMatchObject({ code: 'not_found', status: 404 });
      expect(response.body.detail).not.toContain('secret');
    });

    it('answers a body that is not JSON with 400 invalid_request', async () => {
      const tenant = await gw.createTenant();
      const response = await gw.request('POST', '/v1/crawls', {
        key: tenant.api_key,
        rawBody: '{"url": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_request', detail: 'The request body is not valid JSON.' });
    });

    it('answers a body over the limit with 413 and a form body with 415', async () => {
      const tenant = await gw.createTenant();
      const big = await gw.request('POST', '/v1/crawls', { key: tenant.api_key, body: { url: 'x'.repeat(1_100_000) } });
      expect(big.status).toBe(413);
      expect(big.body.code).toBe('payload_too_large');
      const form = await gw.request('POST', '/v1/crawls', {
        key: tenant.api_key,
        rawBody: 'url=http://shop.test/',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(form.status).toBe(415);
      expect(form.body.code).toBe('unsupported_media_type');
    });
  });

  describe('health and metrics', () => {
    it('is live and ready with Postgres and NATS up', async () => {
      expect((await gw.request('GET', '/healthz')).status).toBe(200);
      const ready = await gw.request('GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks).toEqual({ postgres: true, nats: true, schema: true });
    });

    it('exports request durations by route pattern, never with the API key', async () => {
      const tenant = await gw.createTenant();
      await gw.request('GET', `/v1/crawls?apikey=${tenant.api_key}`);
      const metrics = await gw.request('GET', '/metrics');
      expect(metrics.text).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/v1\/crawls"[^}]*method="GET"[^}]*status_code="200"/);
      expect(metrics.text).not.toContain(tenant.api_key);
    });
  });
});

describe('Gateway plan defaults from its configuration', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({
      PLAN_DEFAULT_CREDITS: '2500',
      PLAN_DEFAULT_CONCURRENCY: '9',
      PLAN_DEFAULT_MAX_ACTIVE_JOBS: '4',
      PLAN_DEFAULT_RATE_LIMIT_PER_MINUTE: '120',
      PLAN_DEFAULT_PERIOD_DAYS: '7',
    });
  });

  afterAll(async () => {
    await gw?.close();
  });

  it('gives a tenant created without those fields the installation plan, and the admin can still override it', async () => {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const before = Date.now();
    const plain = await gw.request('POST', '/admin/v1/tenants', { headers: admin });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ credits: 2500, concurrency: 9, max_active_jobs: 4, rate_limit_per_minute: 120, period_days: 7 });
    expect(Date.parse(plain.body.period_ends_at) - before).toBeLessThan(7.1 * 86_400_000);
    const given = await gw.request('POST', '/admin/v1/tenants', { headers: admin, body: { concurrency: 2 } });
    expect(given.body).toMatchObject({ credits: 2500, concurrency: 2 });
  });
});
