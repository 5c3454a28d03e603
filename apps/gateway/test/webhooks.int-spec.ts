import { randomBytes } from 'node:crypto';
import { startTestGateway, TestGateway } from './gateway-harness';

describe('Webhook endpoints (gateway)', () => {
  let gateway: TestGateway;
  let unconfigured: TestGateway;

  beforeAll(async () => {
    [gateway, unconfigured] = await Promise.all([
      startTestGateway({ SECRETS_KEY: randomBytes(32).toString('base64') }),
      startTestGateway(),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([gateway?.close(), unconfigured?.close()]);
  });

  describe('POST /v1/hmac/keys/rotate', () => {
    it('makes one active key and one candidate when two rotations race on a new account', async () => {
      const { api_key: key } = await gateway.createTenant();
      const answers = await Promise.all([1, 2, 3].map(() => gateway.request('POST', '/v1/hmac/keys/rotate', { key })));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201]);
      expect(answers.filter((a) => a.body.status === 'active')).toHaveLength(1);
      const listed = await gateway.request('GET', '/v1/hmac/keys', { key });
      // The third rotation replaced the second's candidate.
      expect(listed.body.keys.map((k: { status: string }) => k.status).sort()).toEqual(['active', 'candidate', 'retired']);
    });

    it('stores the secret sealed, never as given', async () => {
      const { api_key: key, tenant_id } = await gateway.createTenant();
      const issued = await gateway.request('POST', '/v1/hmac/keys/rotate', { key });
      const { rows } = await gateway.sql.query<{ secret_sealed: Buffer }>(
        `SELECT secret_sealed FROM webhook_signing_keys WHERE tenant_id = $1`,
        [tenant_id],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0].secret_sealed.includes(Buffer.from(issued.body.secret))).toBe(false);
      expect(rows[0].secret_sealed.includes(Buffer.from(issued.body.secret, 'base64'))).toBe(false);
    });

    it('takes no body, and answers 401 without a key', async () => {
      const { api_key: key } = await gateway.createTenant();
      expect((await gateway.request('POST', '/v1/hmac/keys/rotate', { key, body: { x: 1 } })).body.code).toBe('unknown_parameter');
      expect((await gateway.request('POST', '/v1/hmac/keys/rotate')).status).toBe(401);
    });

    it('answers 503 signing_unavailable where SECRETS_KEY is not configured', async () => {
      const { api_key: key } = await unconfigured.createTenant();
      const res = await unconfigured.request('POST', '/v1/hmac/keys/rotate', { key });
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('signing_unavailable');
    });
  });

  describe('DELETE /v1/hmac/keys/rotate', () => {
    it('drops the staged candidate and keeps the active key; 409 with none staged', async () => {
      const { api_key: key } = await gateway.createTenant();
      const active = await gateway.request('POST', '/v1/hmac/keys/rotate', { key });
      expect((await gateway.request('DELETE', '/v1/hmac/keys/rotate', { key })).body).toMatchObject({
        status: 409,
        code: 'no_key_rotation_in_progress',
      });
      const candidate = await gateway.request('POST', '/v1/hmac/keys/rotate', { key });
      expect(candidate.body.status).toBe('candidate');
      expect((await gateway.request('DELETE', '/v1/hmac/keys/rotate', { key })).status).toBe(204);
      const listed = await gateway.request('GET', '/v1/hmac/keys', { key });
      expect(listed.body).toMatchObject({ active_kid: active.body.kid, candidate_kid: null });
      expect(listed.body.keys.find((k: { kid: string }) => k.kid === candidate.body.kid)?.status).toBe('retired');
      // Nothing staged any more: finalizing has nothing to promote.
      expect((await gateway.request('POST', '/v1/hmac/keys/rotate/finalize', { key })).body.code).toBe('no_key_rotation_in_progress');
      expect((await gateway.request('DELETE', '/v1/hmac/keys/rotate', { key, body: { x: 1 } })).body.code).toBe('unknown_parameter');
    });
  });

  describe('POST /v1/webhook/test', () => {
    it('validates the body before sending anything', async () => {
      const { api_key: key } = await gateway.createTenant();
      const missing = await gateway.request('POST', '/v1/webhook/test', { key, body: { signature: false } });
      expect(missing).toMatchObject({ status: 400, body: { code: 'invalid_parameter', parameter: 'url' } });
      const ftp = await gateway.request('POST', '/v1/webhook/test', { key, body: { url: 'ftp://hooks.test/x' } });
      expect(ftp).toMatchObject({ status: 400, body: { code: 'callback_url_must_be_https' } });
      const extra = await gateway.request('POST', '/v1/webhook/test', { key, body: { url: 'https://a.test', x: 1 } });
      expect(extra.body.code).toBe('unknown_parameter');
    });

    it('answers 503 signing_unavailable, naming the key, when the active key cannot be opened', async () => {
      const { api_key: key, tenant_id } = await gateway.createTenant();
      const issued = await gateway.request('POST', '/v1/hmac/keys/rotate', { key });
      // As if SECRETS_KEY had changed since the key was sealed.
      await gateway.sql.query(`UPDATE webhook_signing_keys SET secret_sealed = $2 WHERE tenant_id = $1`, [tenant_id, randomBytes(60)]);
      const res = await gateway.request('POST', '/v1/webhook/test', { key, body: { url: 'https://hooks.test/x', signature: true } });
      expect(res).toMatchObject({ status: 503, body: { code: 'signing_unavailable' } });
      expect(res.body.detail).toContain(issued.body.kid);
    });
  });
});
