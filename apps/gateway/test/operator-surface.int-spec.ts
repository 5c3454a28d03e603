import { ADMIN_TOKEN, startTestGateway, TestGateway } from './gateway-harness';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };

/** `from` is the client address the gateway sees (the harness's loopback is a trusted proxy here). */
const from = (address: string, headers: Record<string, string> = {}) => ({ 'x-forwarded-for': address, ...headers });

describe('Gateway operator surface (ADMIN_PORT)', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ ADMIN_AUTH_FAILURES_PER_MINUTE: '3', TRUSTED_PROXIES: '127.0.0.1' });
  });

  afterAll(async () => {
    await gw?.close();
  });

  async function auditOf(address: string): Promise<{ action: string; admin_fingerprint: string; details: Record<string, string> }[]> {
    const { rows } = await gw.sql.query(
      `SELECT action, admin_fingerprint, details FROM admin_audit WHERE tenant_id IS NULL AND details->>'client_address' = $1 ORDER BY id`,
      [address],
    );
    return rows;
  }

  it('serves the admin API and /metrics only on the admin port, answering them on the public port as any unknown path', async () => {
    const unknown = await gw.request('GET', '/no/such/path', { via: 'public' });
    expect(unknown.status).toBe(404);
    for (const [method, path] of [
      ['POST', '/admin/v1/tenants'],
      ['GET', '/admin/v1/audit'],
      ['GET', '/metrics'],
    ]) {
      const onPublic = await gw.request(method, path, { via: 'public', headers: admin, body: method === 'POST' ? {} : undefined });
      expect(onPublic.status).toBe(404);
      expect(onPublic.headers.get('content-type')).toContain('application/problem+json');
      // Word for word what an unknown path gets, but for the path it names (and its own instance id).
      expect({ ...onPublic.body, detail: onPublic.body.detail.replace(path, ''), instance: undefined }).toEqual({
        ...unknown.body,
        detail: unknown.body.detail.replace('/no/such/path', '').replace('GET', method),
        instance: undefined,
      });
    }
    expect((await gw.request('POST', '/admin/v1/tenants', { via: 'admin', headers: admin, body: {} })).status).toBe(201);
    const metrics = await gw.request('GET', '/metrics', { via: 'admin' });
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain('http_request_duration_seconds_bucket');
  });

  it('answers the public API on the public port only, and probes on both', async () => {
    const tenant = await gw.createTenant();
    const onPublic = await gw.request('GET', '/v1/crawls', { via: 'public', key: tenant.api_key });
    expect(onPublic.status).toBe(200);
    const onAdmin = await gw.request('GET', '/v1/crawls', { via: 'admin', key: tenant.api_key });
    expect(onAdmin.status).toBe(404);
    for (const via of ['public', 'admin'] as const) {
      expect((await gw.request('GET', '/healthz', { via })).status).toBe(200);
      expect((await gw.request('GET', '/readyz', { via })).status).toBe(200);
    }
  });

  it('audits and counts every failed admin authentication, naming the address, and never the token', async () => {
    const wrongToken = 'not-the-admin-token-but-long';
    expect(
      (await gw.request('GET', '/admin/v1/audit', { headers: from('10.1.0.1', { authorization: `Bearer ${wrongToken}` }) })).status,
    ).toBe(401);
    expect((await gw.request('POST', '/admin/v1/tenants', { headers: from('10.1.0.1'), body: {} })).status).toBe(401);

    const audit = await auditOf('10.1.0.1');
    expect(audit).toEqual([
      {
        action: 'admin.auth_failed',
        admin_fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
        details: { client_address: '10.1.0.1', method: 'GET', path: '/admin/v1/audit', reason: 'wrong_token' },
      },
      {
        action: 'admin.auth_failed',
        admin_fingerprint: '',
        details: { client_address: '10.1.0.1', method: 'POST', path: '/admin/v1/tenants', reason: 'missing' },
      },
    ]);
    expect(JSON.stringify(audit)).not.toContain(wrongToken);
    // The audit API lists them, tenant-less.
    const listed = await gw.request('GET', '/admin/v1/audit?limit=100', { headers: admin });
    expect(listed.body.entries).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          action: 'admin.auth_failed',
          tenant_id: null,
          details: expect.objectContaining({ client_address: '10.1.0.1' }),
        }),
      ]),
    );
    const metrics = (await gw.request('GET', '/metrics')).text;
    expect(metrics).toMatch(/trawl_gateway_admin_auth_refusals_total\{[^}]*reason="wrong_token"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/trawl_gateway_admin_auth_refusals_total\{[^}]*reason="missing"[^}]*\} [1-9]/);
  });

  it('refuses an address that failed too often, even with the right token, with 429 and Retry-After; audits the start only', async () => {
    for (let i = 0; i < 3; i++) {
      expect(
        (await gw.request('GET', '/admin/v1/audit', { headers: from('10.2.0.1', { authorization: 'Bearer guess-number-0123456789' }) }))
          .status,
      ).toBe(401);
    }
    const refused = await gw.request('GET', '/admin/v1/audit', { headers: from('10.2.0.1', admin) });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toContain('application/problem+json');
    expect(refused.body).toMatchObject({ status: 429, code: 'too_many_requests' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await gw.request('GET', '/admin/v1/audit', { headers: from('10.2.0.1', admin) })).status).toBe(429);

    const audit = await auditOf('10.2.0.1');
    expect(audit.map((entry) => entry.action)).toEqual([
      'admin.auth_failed',
      'admin.auth_failed',
      'admin.auth_failed',
      'admin.auth_throttled',
    ]);
    // Another address is not held back.
    expect((await gw.request('GET', '/admin/v1/audit', { headers: from('10.2.0.2', admin) })).status).toBe(200);
    expect((await gw.request('GET', '/metrics')).text).toMatch(/trawl_gateway_admin_auth_refusals_total\{[^}]*reason="throttled"[^}]*\} 2/);
  });
});
