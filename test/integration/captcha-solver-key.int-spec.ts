import { randomBytes } from 'node:crypto';
import { INestApplicationContext } from '@nestjs/common';
import { startWorkerApp } from '../../apps/fetch-worker/test/support/worker-app';
import { GatewayReplicas, json, startGatewayReplicas } from '../../apps/gateway/test/fetch-harness';
import { ADMIN_TOKEN } from '../../apps/gateway/test/gateway-harness';
import { FAKE_SOLVER_HOST, FAKE_SOLVER_KEY, FakeCaptchaSolver, startFakeCaptchaSolver } from '../fixtures/captcha-solver/server';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../fixtures/web';
import { CAPTCHA_PROTECTED_TEXT } from '../fixtures/web/sites/captcha';

/**
 * Tenants' CAPTCHA solver keys sealed at rest with SECRETS_KEY: the gateway over its own database,
 * a real fetch worker in this process, the fixture web and the fake solver.
 */
describe('CAPTCHA solver key at rest', () => {
  let web: FixtureWeb;
  let solver: FakeCaptchaSolver;
  let gw: GatewayReplicas;
  let worker: INestApplicationContext | undefined;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 1 });
    solver = await startFakeCaptchaSolver();
    gw = await startGatewayReplicas(1, { SECRETS_KEY: randomBytes(32).toString('base64') });
    worker = await startWorkerApp({
      NATS_PREFIX: gw.prefix,
      EGRESS_HOST_MAP: `${fixtureHostMap()},${FAKE_SOLVER_HOST}=127.0.0.1`,
      BROWSERS: '0',
      CAPTCHA_POLL_INTERVAL_MS: '50',
      SHUTDOWN_TIMEOUT_MS: '4000',
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await gw?.close();
    await web?.close();
    await solver?.close();
  });

  const fetchCaptchaPage = (apiKey: string) =>
    fetch(`${gw.urls[0]}/v1/?${new URLSearchParams({ apikey: apiKey, url: web.url('captcha.test', '/') })}`);

  async function storedKey(tenantId: string): Promise<{ captcha_solver_key: string | null; captcha_solver_key_sealed: Buffer | null }> {
    const { rows } = await gw.sql.query(`SELECT captcha_solver_key, captcha_solver_key_sealed FROM tenants WHERE id = $1`, [tenantId]);
    return rows[0];
  }

  it('stores the key sealed, never answers it, and solves with it', async () => {
    const tenant = await gw.createTenant({ captcha_solver: { endpoint: solver.endpoint, key: FAKE_SOLVER_KEY } });
    expect(JSON.stringify(tenant)).not.toContain(FAKE_SOLVER_KEY);
    const stored = await storedKey(tenant.tenant_id);
    expect(stored.captcha_solver_key).toBeNull();
    expect(stored.captcha_solver_key_sealed).toBeInstanceOf(Buffer);
    expect(stored.captcha_solver_key_sealed!.includes(Buffer.from(FAKE_SOLVER_KEY))).toBe(false);

    const page = await fetchCaptchaPage(tenant.api_key);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(CAPTCHA_PROTECTED_TEXT);

    const patched = await gw.patchTenant(tenant.tenant_id, { name: 'renamed' });
    expect(patched.status).toBe(200);
    const body = await patched.text();
    expect(body).not.toContain(FAKE_SOLVER_KEY);
    expect(JSON.parse(body).captcha_solver).toEqual({ endpoint: solver.endpoint, key_configured: true });
    const usage = await fetch(`${gw.urls[0]}/v1/subscriptions/self/details`, { headers: { 'x-api-key': tenant.api_key } });
    expect(await usage.text()).not.toContain(FAKE_SOLVER_KEY);
  });

  it('binds the sealed key to its tenant: copied onto another tenant it does not open', async () => {
    const owner = await gw.createTenant({ captcha_solver: { endpoint: solver.endpoint, key: FAKE_SOLVER_KEY } });
    const other = await gw.createTenant();
    await gw.sql.query(
      `UPDATE tenants SET captcha_solver_endpoint = $2,
              captcha_solver_key_sealed = (SELECT captcha_solver_key_sealed FROM tenants WHERE id = $1) WHERE id = $3`,
      [owner.tenant_id, solver.endpoint, other.tenant_id],
    );
    const page = await fetchCaptchaPage(other.api_key);
    // Without a solver the worker cannot pass the CAPTCHA.
    expect(await page.text()).not.toContain(CAPTCHA_PROTECTED_TEXT);
  });

  it('still solves with a plaintext key from before sealing, and clears it when the key is set again', async () => {
    const tenant = await gw.createTenant();
    await gw.sql.query(`UPDATE tenants SET captcha_solver_endpoint = $2, captcha_solver_key = $3 WHERE id = $1`, [
      tenant.tenant_id,
      solver.endpoint,
      FAKE_SOLVER_KEY,
    ]);
    expect(await (await fetchCaptchaPage(tenant.api_key)).text()).toContain(CAPTCHA_PROTECTED_TEXT);

    const patched = await gw.patchTenant(tenant.tenant_id, { captcha_solver: { endpoint: solver.endpoint, key: FAKE_SOLVER_KEY } });
    expect(patched.status).toBe(200);
    const stored = await storedKey(tenant.tenant_id);
    expect(stored.captcha_solver_key).toBeNull();
    expect(stored.captcha_solver_key_sealed).toBeInstanceOf(Buffer);
    expect(await (await fetchCaptchaPage(tenant.api_key)).text()).toContain(CAPTCHA_PROTECTED_TEXT);

    expect((await json(await gw.patchTenant(tenant.tenant_id, { captcha_solver: null }))).captcha_solver).toBeNull();
    expect(await storedKey(tenant.tenant_id)).toEqual({ captcha_solver_key: null, captcha_solver_key_sealed: null });
  });

  describe('without SECRETS_KEY', () => {
    let bare: GatewayReplicas;

    beforeAll(async () => {
      bare = await startGatewayReplicas(1);
    });

    afterAll(async () => {
      await bare?.close();
    });

    it('answers 503 secrets_unavailable to setting a solver key, and stores nothing', async () => {
      const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
      const created = await fetch(`${bare.adminUrls[0]}/admin/v1/tenants`, {
        method: 'POST',
        headers: admin,
        body: JSON.stringify({ captcha_solver: { endpoint: solver.endpoint, key: FAKE_SOLVER_KEY } }),
      });
      expect(created.status).toBe(503);
      const problem = await created.json();
      expect(problem).toMatchObject({ code: 'secrets_unavailable', status: 503 });
      expect(JSON.stringify(problem)).not.toContain(FAKE_SOLVER_KEY);
      expect((await bare.sql.query(`SELECT count(*)::int AS n FROM tenants`)).rows[0].n).toBe(0);

      const tenant = await bare.createTenant();
      const patched = await bare.patchTenant(tenant.tenant_id, { captcha_solver: { endpoint: solver.endpoint, key: FAKE_SOLVER_KEY } });
      expect(patched.status).toBe(503);
      expect((await json(patched)).code).toBe('secrets_unavailable');
      // Removing a solver needs no key.
      expect((await bare.patchTenant(tenant.tenant_id, { captcha_solver: null })).status).toBe(200);
    });
  });
});
