import { createHash } from 'node:crypto';
import { waitFor } from '@trawl/testing';
import { ADMIN_TOKEN, startTestGateway, TestGateway } from './gateway-harness';

const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
const FINGERPRINT = createHash('sha256').update(ADMIN_TOKEN).digest('hex').slice(0, 8);

describe('Admin API: tenants, keys, usage, audit', () => {
  let gw: TestGateway;
  const adminCall = (method: string, path: string, body?: unknown) => gw.request(method, path, { headers: admin, body });

  beforeAll(async () => {
    // A zero cache TTL makes revocation, rotation and suspension visible at once.
    gw = await startTestGateway({ API_KEY_CACHE_TTL_MS: '0' }, { captureLogs: true });
  });

  afterAll(async () => {
    await gw?.close();
  });

  describe('GET /admin/v1/tenants', () => {
    it('lists tenants newest first, page by page with a cursor', async () => {
      const made = [await gw.createTenant({ name: 'l1' }), await gw.createTenant({ name: 'l2' }), await gw.createTenant({ name: 'l3' })];
      const first = await adminCall('GET', '/admin/v1/tenants?limit=2');
      expect(first.status).toBe(200);
      expect(first.body.tenants.map((t: { tenant_id: string }) => t.tenant_id)).toEqual([made[2]!.tenant_id, made[1]!.tenant_id]);
      expect(first.body.tenants[0]).not.toHaveProperty('api_key');
      const second = await adminCall('GET', `/admin/v1/tenants?limit=2&cursor=${first.body.next_cursor}`);
      expect(second.body.tenants[0].tenant_id).toBe(made[0]!.tenant_id);
    });

    it.each([
      ['limit=0', 'invalid_request', 'limit'],
      ['cursor=nope', 'invalid_cursor', 'cursor'],
      ['page=2', 'unknown_parameter', 'page'],
    ])('refuses %s naming the parameter', async (query, code, parameter) => {
      const response = await adminCall('GET', `/admin/v1/tenants?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body).toMatchObject({ code, parameter });
    });

    it('needs the admin token', async () => {
      expect((await gw.request('GET', '/admin/v1/tenants')).status).toBe(401);
      expect((await gw.request('GET', '/admin/v1/audit')).status).toBe(401);
    });
  });

  describe('GET /admin/v1/tenants/{id}', () => {
    it('reads a tenant, and answers 404 for an unknown or malformed id', async () => {
      const tenant = await gw.createTenant({ name: 'read-me' });
      const response = await adminCall('GET', `/admin/v1/tenants/${tenant.tenant_id}`);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ tenant_id: tenant.tenant_id, name: 'read-me', suspended_at: null });
      for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
        const missing = await adminCall('GET', `/admin/v1/tenants/${id}`);
        expect(missing.status).toBe(404);
        expect(missing.body.code).toBe('tenant_not_found');
      }
    });
  });

  describe('keys', () => {
    it('issues named keys shown once, lists them per tenant only, and refuses a duplicate name', async () => {
      const a = await gw.createTenant();
      const b = await gw.createTenant();
      const issued = await adminCall('POST', `/admin/v1/tenants/${a.tenant_id}/keys`, { name: 'ci' });
      expect(issued.status).toBe(201);
      expect(issued.body).toMatchObject({
        name: 'ci',
        api_key: expect.stringMatching(/^[0-9a-f]{40}$/),
        revoked_at: null,
        last_used_at: null,
      });
      expect(issued.body.hint).toBe(`…${issued.body.api_key.slice(-4)}`);
      expect((await gw.request('GET', '/v1/crawls', { key: issued.body.api_key })).status).toBe(200);

      const listA = await adminCall('GET', `/admin/v1/tenants/${a.tenant_id}/keys`);
      expect(listA.body.keys.map((k: { name: string }) => k.name)).toEqual(['ci', 'default']);
      expect(listA.text).not.toContain(issued.body.api_key);
      expect(listA.text).not.toContain(a.api_key);
      const listB = await adminCall('GET', `/admin/v1/tenants/${b.tenant_id}/keys`);
      expect(listB.body.keys.map((k: { key_id: string }) => k.key_id)).not.toContain(issued.body.key_id);
      // A key of A is unknown under B.
      const crossed = await adminCall('DELETE', `/admin/v1/tenants/${b.tenant_id}/keys/${issued.body.key_id}`);
      expect(crossed.status).toBe(404);
      expect(crossed.body.code).toBe('api_key_not_found');

      const duplicate = await adminCall('POST', `/admin/v1/tenants/${a.tenant_id}/keys`, { name: 'ci' });
      expect(duplicate.status).toBe(409);
      expect(duplicate.body).toMatchObject({ code: 'api_key_name_taken', parameter: 'name' });
    });

    it.each([
      [{}, 400, 'name'],
      [{ name: 3 }, 400, 'name'],
      [{ name: '' }, 422, 'name'],
      [{ name: 'x', scope: 'all' }, 400, 'scope'],
    ])('refuses the body %j naming the field', async (body, status, parameter) => {
      const tenant = await gw.createTenant();
      const response = await adminCall('POST', `/admin/v1/tenants/${tenant.tenant_id}/keys`, body);
      expect(response.status).toBe(status);
      expect(response.body.parameter).toBe(parameter);
    });

    it('answers 404 for the keys of an unknown tenant', async () => {
      const id = '00000000-0000-4000-8000-000000000000';
      expect((await adminCall('GET', `/admin/v1/tenants/${id}/keys`)).status).toBe(404);
      expect((await adminCall('POST', `/admin/v1/tenants/${id}/keys`, { name: 'x' })).status).toBe(404);
    });

    it("revokes one key: it is refused, the tenant's other key still works", async () => {
      const tenant = await gw.createTenant();
      const second = (await adminCall('POST', `/admin/v1/tenants/${tenant.tenant_id}/keys`, { name: 'second' })).body;
      const revoked = await adminCall('DELETE', `/admin/v1/tenants/${tenant.tenant_id}/keys/${second.key_id}`);
      expect(revoked.status).toBe(200);
      expect(revoked.body.revoked_at).toEqual(expect.any(String));
      expect((await gw.request('GET', '/v1/crawls', { key: second.api_key })).body.code).toBe('AUTH003');
      expect((await gw.request('GET', '/v1/crawls', { key: tenant.api_key })).status).toBe(200);
      // Revoking again changes nothing; rotating a revoked key is refused.
      expect((await adminCall('DELETE', `/admin/v1/tenants/${tenant.tenant_id}/keys/${second.key_id}`)).body.revoked_at).toBe(
        revoked.body.revoked_at,
      );
      const rotate = await adminCall('POST', `/admin/v1/tenants/${tenant.tenant_id}/keys/${second.key_id}/rotate`);
      expect(rotate.status).toBe(409);
      expect(rotate.body.code).toBe('api_key_revoked');
    });

    it('rotates a key: the old secret is refused, the new one accepted, same key id and name', async () => {
      const tenant = await gw.createTenant();
      const [key] = (await adminCall('GET', `/admin/v1/tenants/${tenant.tenant_id}/keys`)).body.keys;
      const rotated = await adminCall('POST', `/admin/v1/tenants/${tenant.tenant_id}/keys/${key.key_id}/rotate`);
      expect(rotated.status).toBe(200);
      expect(rotated.body).toMatchObject({ key_id: key.key_id, name: 'default', rotated_at: expect.any(String) });
      expect(rotated.body.api_key).not.toBe(tenant.api_key);
      expect((await gw.request('GET', '/v1/crawls', { key: tenant.api_key })).body.code).toBe('AUTH003');
      expect((await gw.request('GET', '/v1/crawls', { key: rotated.body.api_key })).status).toBe(200);
    });

    it('sets last_used_at after a request', async () => {
      const tenant = await gw.createTenant();
      expect((await adminCall('GET', `/admin/v1/tenants/${tenant.tenant_id}/keys`)).body.keys[0].last_used_at).toBeNull();
      const before = Date.now() - 1_000;
      await gw.request('GET', '/v1/crawls', { key: tenant.api_key });
      const used = await waitFor(
        async () =>
          ((await adminCall('GET', `/admin/v1/tenants/${tenant.tenant_id}/keys`)).body.keys[0].last_used_at as string | null) ?? undefined,
        { timeoutMs: 5_000, what: 'last_used_at' },
      );
      expect(Date.parse(used)).toBeGreaterThanOrEqual(before);
    });
  });

  describe('suspend and resume', () => {
    it('refuses every public route with AUTH011 while suspended, Fetch and crawls included, and serves again once resumed', async () => {
      const tenant = await gw.createTenant();
      const suspended = await adminCall('POST', `/admin/v1/tenants/${tenant.tenant_id}/suspend`);
      expect(suspended.status).toBe(200);
      expect(suspended.body.suspended_at).toEqual(expect.any(String));
      const routes: [string, string, unknown?][] = [
        ['GET', '/v1?url=https%3A%2F%2Fshop.test%2F'],
        ['GET', '/v1/crawls'],
        ['POST', '/v1/crawls', { url: 'https://shop.test/' }],
        ['GET', '/v1/subscriptions/self/details'],
      ];
      for (const [method, path, body] of routes) {
        const response = await gw.request(method, path, { key: tenant.api_key, body });
        expect({ path, status: response.status, code: response.body.code }).toEqual({ path, status: 402, code: 'AUTH011' });
        expect(response.body.detail).toContain('suspended');
      }
      // Suspending twice keeps the first time.
      expect((await adminCall('POST', `/admin/v1/tenants/${tenant.tenant_id}/suspend`)).body.suspended_at).toBe(
        suspended.body.suspended_at,
      );

      const resumed = await adminCall('POST', `/admin/v1/tenants/${tenant.tenant_id}/resume`);
      expect(resumed.body.suspended_at).toBeNull();
      expect((await gw.request('GET', '/v1/crawls', { key: tenant.api_key })).status).toBe(200);
      // A parameter error, not AUTH011: the request got past the account.
      const fetchAgain = await gw.request('GET', '/v1?url=not-a-url', { key: tenant.api_key });
      expect(fetchAgain.body.code).not.toBe('AUTH011');
      expect(fetchAgain.status).toBe(400);
      expect((await gw.request('POST', '/v1/crawls', { key: tenant.api_key, body: { url: 'https://shop.test/' } })).status).toBe(202);
    });

    it('answers 404 for an unknown tenant', async () => {
      expect((await adminCall('POST', '/admin/v1/tenants/00000000-0000-4000-8000-000000000000/suspend')).status).toBe(404);
    });
  });

  describe('GET /admin/v1/tenants/{id}/usage', () => {
    it("answers the tenant's own usage figures with the period's requests by product", async () => {
      const tenant = await gw.createTenant({ credits: 1_000 });
      await gw.sql.query(
        `INSERT INTO credit_ledger (tenant_id, credits, product, tier, ref) VALUES ($1, 5, 'fetch', 'js', 'a'), ($1, 1, 'fetch', 'basic', 'b'), ($1, 1, 'crawl_page', 'basic', 'c'), ($1, 1, 'crawl_page', 'basic', 'd')`,
        [tenant.tenant_id],
      );
      await gw.sql.query(`UPDATE tenants SET credits_used = 8 WHERE id = $1`, [tenant.tenant_id]);
      const usage = await adminCall('GET', `/admin/v1/tenants/${tenant.tenant_id}/usage`);
      const own = await gw.request('GET', '/v1/subscriptions/self/details', { key: tenant.api_key });
      expect(usage.status).toBe(200);
      expect(usage.body).toMatchObject({
        ...own.body,
        tenant_id: tenant.tenant_id,
        credits_total: 1_000,
        credits_used: 8,
        requests_by_product: { fetch: 2, crawl: 2, batch: 0, extract: 0 },
        credits_by_product: { fetch: 6, crawl: 2, batch: 0, extract: 0 },
      });
      expect((await adminCall('GET', '/admin/v1/tenants/00000000-0000-4000-8000-000000000000/usage')).status).toBe(404);
    });
  });

  describe('GET /admin/v1/audit', () => {
    it("records every change with the admin token's fingerprint and never a secret", async () => {
      const tenant = await gw.createTenant({ name: 'audited' });
      const id = tenant.tenant_id;
      await adminCall('PATCH', `/admin/v1/tenants/${id}`, { concurrency: 2 });
      const key = (await adminCall('POST', `/admin/v1/tenants/${id}/keys`, { name: 'k' })).body;
      const rotated = (await adminCall('POST', `/admin/v1/tenants/${id}/keys/${key.key_id}/rotate`)).body;
      await adminCall('DELETE', `/admin/v1/tenants/${id}/keys/${key.key_id}`);
      await adminCall('POST', `/admin/v1/tenants/${id}/suspend`);
      await adminCall('POST', `/admin/v1/tenants/${id}/resume`);

      const audit = await adminCall('GET', `/admin/v1/audit?tenant_id=${id}&limit=4`);
      expect(audit.status).toBe(200);
      const rest = await adminCall('GET', `/admin/v1/audit?tenant_id=${id}&cursor=${audit.body.next_cursor}`);
      const entries = [...audit.body.entries, ...rest.body.entries].reverse();
      expect(entries.map((e: { action: string; key_id: string | null }) => [e.action, e.key_id])).toEqual([
        ['tenant.created', expect.any(String)],
        ['tenant.updated', null],
        ['api_key.created', key.key_id],
        ['api_key.rotated', key.key_id],
        ['api_key.revoked', key.key_id],
        ['tenant.suspended', null],
        ['tenant.resumed', null],
      ]);
      for (const entry of entries) {
        expect(entry).toMatchObject({ tenant_id: id, admin_fingerprint: FINGERPRINT, created_at: expect.any(String) });
      }
      expect(entries[1].details).toEqual({ fields: ['concurrency'] });
      const everything = [audit.text, rest.text, ...gw.logLines].join('\n');
      for (const secret of [tenant.api_key, key.api_key, rotated.api_key, ADMIN_TOKEN]) expect(everything).not.toContain(secret);

      const all = await adminCall('GET', '/admin/v1/audit');
      expect(all.body.entries[0]).toMatchObject({ action: 'tenant.resumed', tenant_id: id });
    });
  });
});
