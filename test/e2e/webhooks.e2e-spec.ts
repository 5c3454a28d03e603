import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { messagingTopology } from '@trawl/contracts';
import { sqlOn, testPool, waitFor } from '@trawl/testing';
import { enqueueWebhookEvent, RunWebhookEventInput } from '@trawl/webhooks';
import { createTestTls, WebhookReceiver } from '../fixtures/webhook-receiver';
import { ApiClient, Platform } from '../support/platform';

/**
 * Signed webhooks end to end: gateway, coordinator (it runs the outbox relay) and dispatcher as
 * processes, a real HTTPS receiver on loopback (`hooks.test`) trusted through NODE_EXTRA_CA_CERTS.
 * Run ends are simulated by writing the run event to the outbox the way the scheduler does.
 */
jest.setTimeout(60_000);

describe('Webhooks (e2e)', () => {
  const tls = createTestTls();
  const receiver = new WebhookReceiver(tls);
  let platform: Platform;
  let pool: Pool;
  let api: ApiClient;
  let runsApi: ApiClient;
  let runsTenantId: string;

  beforeAll(async () => {
    await receiver.start();
    const caFile = tls.writeCa(join(mkdtempSync(join(tmpdir(), 'trawl-hooks-')), 'ca.pem'));
    platform = new Platform('webhooks', {
      hostMap: 'hooks.test=127.0.0.1',
      services: ['gateway', 'crawl-coordinator', 'webhook-dispatcher'],
      env: {
        all: { SECRETS_KEY: randomBytes(32).toString('base64'), NODE_EXTRA_CA_CERTS: caFile, WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000' },
        'webhook-dispatcher': { WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_POLL_INTERVAL_MS: '100' },
      },
    });
    await platform.start();
    pool = testPool(platform.databaseUrl, 2);
    api = platform.client((await platform.createTenant()).api_key);
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await platform?.stop();
    await receiver.stop();
  }, 60_000);

  /** A run end with a signed webhook to the receiver, written to the outbox. */
  async function endRun(overrides: Partial<RunWebhookEventInput> = {}): Promise<{ eventId: string; jobId: string }> {
    const jobId = overrides.job_id ?? randomUUID();
    const sql = sqlOn(pool);
    const eventId = await enqueueWebhookEvent(sql, messagingTopology(platform.prefix), {
      event_type: 'run.completed',
      occurred_at: new Date().toISOString(),
      tenant_id: runsTenantId,
      job_id: jobId,
      run_id: randomUUID(),
      run_sequence: 1,
      stats: { total: 10, completed: 10, successful: 9, failed: 1, spend: { credits: 9, cost: 0.0009 } },
      webhook: { url: receiver.url('/runs'), signature: true },
      ...overrides,
    });
    return { eventId, jobId };
  }

  function deliveries(jobId: string) {
    return runsApi.request('GET', `/v1/jobs/${jobId}/webhook/deliveries`);
  }

  describe('signing keys and POST /v1/webhook/test', () => {
    it('refuses a signed test without an active key, and an http URL', async () => {
      const signed = await api.request('POST', '/v1/webhook/test', { url: receiver.url(), signature: true });
      expect(signed.status).toBe(400);
      expect(signed.body.code).toBe('webhook_signing_requires_active_key');
      expect(signed.headers.get('content-type')).toContain('application/problem+json');
      const http = await api.request('POST', '/v1/webhook/test', { url: `http://hooks.test:${receiver.port}/`, signature: false });
      expect(http.status).toBe(400);
      expect(http.body.code).toBe('callback_url_must_be_https');
    });

    it('creates, stages, finalizes; tests are signed with the active key throughout', async () => {
      expect((await api.request('GET', '/v1/hmac/keys')).body).toEqual({ active_kid: null, candidate_kid: null, keys: [] });
      expect((await api.request('POST', '/v1/hmac/keys/rotate/finalize')).status).toBe(409);

      const first = await api.request('POST', '/v1/hmac/keys/rotate');
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ kid: expect.stringMatching(/^kid_/), status: 'active' });
      expect(Buffer.from(first.body.secret, 'base64')).toHaveLength(32);
      receiver.trust(first.body.kid, first.body.secret);

      const test1 = await api.request('POST', '/v1/webhook/test', { url: receiver.url('/t1'), signature: true });
      expect(test1.status).toBe(200);
      expect(test1.body).toEqual({ delivered: true, event_id: expect.any(String), status_code: 200, elapsed_ms: expect.any(Number) });
      const [got1] = receiver.forEvent(test1.body.event_id);
      expect(got1).toMatchObject({ signature: 'ok', kid: first.body.kid, path: '/t1' });
      expect(got1.headers['user-agent']).toBe('service-webhook/v1');
      expect(got1.body).toMatchObject({
        schema: 'service.webhook/v1',
        event_type: 'webhook.test',
        event_id: test1.body.event_id,
        job_id: null,
      });

      // Rotation staged: receivers add the candidate; deliveries are still signed with the active key.
      const second = await api.request('POST', '/v1/hmac/keys/rotate');
      expect(second.body.status).toBe('candidate');
      receiver.trust(second.body.kid, second.body.secret);
      const listed = await api.request('GET', '/v1/hmac/keys');
      expect(listed.body).toMatchObject({ active_kid: first.body.kid, candidate_kid: second.body.kid });
      expect(JSON.stringify(listed.body)).not.toContain(first.body.secret);
      const test2 = await api.request('POST', '/v1/webhook/test', { url: receiver.url('/t2'), signature: true });
      expect(receiver.forEvent(test2.body.event_id)[0]).toMatchObject({ signature: 'ok', kid: first.body.kid });

      const finalized = await api.request('POST', '/v1/hmac/keys/rotate/finalize');
      expect(finalized.status).toBe(200);
      expect(finalized.body.active_kid).toBe(second.body.kid);
      receiver.forget(first.body.kid);
      const test3 = await api.request('POST', '/v1/webhook/test', { url: receiver.url('/t3'), signature: true });
      expect(receiver.forEvent(test3.body.event_id)[0]).toMatchObject({ signature: 'ok', kid: second.body.kid });
      expect((await api.request('GET', '/v1/hmac/keys')).body).toMatchObject({ active_kid: second.body.kid, candidate_kid: null });
      expect((await api.request('POST', '/v1/hmac/keys/rotate/finalize')).body.code).toBe('no_key_rotation_in_progress');
    });

    it('answers a failed test with the receiver status or the reason', async () => {
      receiver.failNext(1, 503);
      const failed = await api.request('POST', '/v1/webhook/test', { url: receiver.url(), signature: false });
      expect(failed.body).toMatchObject({ delivered: false, status_code: 503, error: 'http_5xx:503' });
      const refused = await api.request('POST', '/v1/webhook/test', { url: 'https://10.0.0.1/hook', signature: false });
      expect(refused.body).toMatchObject({ delivered: false, status_code: null, error: 'egress_refused' });
    });
  });

  describe('run events', () => {
    // A tenant of its own with an active key, so these tests do not depend on the rotation tests.
    beforeAll(async () => {
      const tenant = await platform.createTenant();
      runsTenantId = tenant.tenant_id;
      runsApi = platform.client(tenant.api_key);
      const key = await runsApi.request('POST', '/v1/hmac/keys/rotate');
      receiver.trust(key.body.kid, key.body.secret);
    });

    it('arrive after the receiver failed twice, with one event id, signed, every attempt logged', async () => {
      receiver.failNext(2);
      const { eventId, jobId } = await endRun();
      const arrivals = await waitFor(
        () => {
          const got = receiver.forEvent(eventId);
          return got.some((r) => r.answered === 200) && got;
        },
        { timeoutMs: 30_000, what: 'the run event to be delivered' },
      );
      expect(arrivals.map((r) => r.answered)).toEqual([500, 500, 200]);
      for (const arrival of arrivals) {
        expect(arrival.signature).toBe('ok');
        expect(arrival.eventId).toBe(eventId);
        expect(arrival.body).toMatchObject({ schema: 'service.webhook/v1', event_id: eventId, event_type: 'run.completed', job_id: jobId });
      }
      // The same bytes every time: the body is fixed when the event is taken in.
      expect(new Set(arrivals.map((r) => r.rawBody.toString())).size).toBe(1);

      const log = await waitFor(
        async () => {
          const res = await deliveries(jobId);
          return res.body.deliveries?.[0]?.status === 'delivered' && res.body;
        },
        { what: 'the delivery log to show the delivery' },
      );
      expect(log.next_cursor).toBeNull();
      expect(log.deliveries).toHaveLength(1);
      expect(log.deliveries[0]).toMatchObject({ event_id: eventId, event_type: 'run.completed', signed: true });
      expect(log.deliveries[0].attempts.map((a: { status_code: number; error: string | null }) => [a.status_code, a.error])).toEqual([
        [500, 'http_5xx:500'],
        [500, 'http_5xx:500'],
        [200, null],
      ]);
    });

    it('pages the log newest first with a cursor', async () => {
      const jobId = randomUUID();
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) ids.push((await endRun({ job_id: jobId, run_sequence: i + 1 })).eventId);
      await waitFor(
        async () => {
          const res = await runsApi.request('GET', `/v1/jobs/${jobId}/webhook/deliveries?limit=100`);
          return res.body.deliveries?.length === 3 && res.body.deliveries.every((d: { status: string }) => d.status === 'delivered');
        },
        { timeoutMs: 30_000, what: 'three deliveries' },
      );
      const first = await runsApi.request('GET', `/v1/jobs/${jobId}/webhook/deliveries?limit=2`);
      expect(first.body.deliveries).toHaveLength(2);
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const second = await runsApi.request('GET', `/v1/jobs/${jobId}/webhook/deliveries?limit=2&cursor=${first.body.next_cursor}`);
      expect(second.body.deliveries).toHaveLength(1);
      expect(second.body.next_cursor).toBeNull();
      const seen = [...first.body.deliveries, ...second.body.deliveries].map((d: { event_id: string }) => d.event_id);
      expect([...seen].sort()).toEqual([...ids].sort());
      const foreign = await runsApi.request('GET', `/v1/jobs/${randomUUID()}/webhook/deliveries?cursor=${first.body.next_cursor}`);
      expect(foreign.status).toBe(400);
      expect(foreign.body.code).toBe('invalid_cursor');
    });

    it('exposes delivery outcomes, attempt latency and the due backlog as metrics', async () => {
      receiver.failNext(1);
      const { jobId } = await endRun();
      await waitFor(async () => (await deliveries(jobId)).body.deliveries?.[0]?.status === 'delivered', { timeoutMs: 30_000 });
      const res = await fetch(platform.metricsUrl('webhook-dispatcher'));
      const text = await res.text();
      expect(text).toMatch(/trawl_webhook_attempts_total\{[^}]*outcome="delivered"[^}]*\} [1-9]/);
      expect(text).toMatch(/trawl_webhook_attempts_total\{[^}]*outcome="retry_scheduled"[^}]*\} [1-9]/);
      expect(text).toContain('trawl_webhook_attempt_seconds_bucket');
      expect(text).toMatch(/trawl_webhook_deliveries_due\{[^}]*\} 0/);
    });

    it('keeps the log tenant-scoped', async () => {
      const { jobId } = await endRun();
      await waitFor(async () => (await deliveries(jobId)).body.deliveries?.[0]?.status === 'delivered', { timeoutMs: 30_000 });
      const stranger = platform.client((await platform.createTenant()).api_key);
      expect((await stranger.request('GET', `/v1/jobs/${jobId}/webhook/deliveries`)).body.deliveries).toEqual([]);
    });

    it('survive a kill -9 of the dispatcher between attempts: delivered once, same event id', async () => {
      receiver.failNext(2);
      const { eventId, jobId } = await endRun({ event_type: 'run.failed', failure_reason: 'stopped', failure_detail: 'x' });
      await waitFor(() => receiver.forEvent(eventId).length >= 1, { timeoutMs: 30_000, what: 'a first attempt' });
      await platform.kill('webhook-dispatcher', 'SIGKILL');
      await platform.startService('webhook-dispatcher');
      const arrivals = await waitFor(
        () => {
          const got = receiver.forEvent(eventId);
          return got.some((r) => r.answered === 200) && got;
        },
        { timeoutMs: 30_000, what: 'the run event to be delivered after the restart' },
      );
      const log = await waitFor(
        async () => {
          const res = await deliveries(jobId);
          return res.body.deliveries?.[0]?.status === 'delivered' && res.body.deliveries[0];
        },
        { what: 'the delivery to be recorded' },
      );
      // A little longer: a duplicate success would show up now if a claim were taken twice.
      await waitFor(() => receiver.forEvent(eventId).length >= arrivals.length, { timeoutMs: 1_000 });
      const all = receiver.forEvent(eventId);
      expect(all.filter((r) => r.answered === 200)).toHaveLength(1);
      expect(all.every((r) => r.signature === 'ok' && r.body.event_type === 'run.failed')).toBe(true);
      expect(all[0].body).toMatchObject({ failure_reason: 'stopped', failure_detail: 'x' });
      expect(log.attempts.at(-1)).toMatchObject({ status_code: 200, error: null });
      expect(log.attempts.length).toBeLessThanOrEqual(all.length);
    });
  });
});
