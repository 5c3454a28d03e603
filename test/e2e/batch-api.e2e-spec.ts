import { randomBytes } from 'node:crypto';
import type { Pool } from 'pg';
import { testPool, waitFor } from '@trawl/testing';
import { ApiClient, Platform } from '../support/platform';

/**
 * The Batch API's HTTP surface end to end: gateway and scheduler as processes, the public API only
 * (plus reads of Postgres where the API has no window, e.g. the schedule row the scheduler fires).
 * Task execution is not asserted on here: runs are only seen queued.
 */
jest.setTimeout(120_000);

describe('Batch API (e2e)', () => {
  let platform: Platform;
  let pool: Pool;
  let api: ApiClient;

  beforeAll(async () => {
    platform = new Platform('batch-api', {
      hostMap: 'shop.test=127.0.0.1,hooks.test=127.0.0.1',
      services: ['gateway', 'scheduler'],
      env: { all: { SECRETS_KEY: randomBytes(32).toString('base64') } },
    });
    await platform.start();
    pool = testPool(platform.databaseUrl, 2);
    api = platform.client((await platform.createTenant({ max_active_jobs: 10 })).api_key);
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await platform?.stop();
  }, 60_000);

  const tasks = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ url: `https://shop.test/item/${from + i}`, external_id: `sku-${from + i}` }));

  it('creates a closed job, reads it back, lists it and pages its tasks as results', async () => {
    const created = await api.request(
      'POST',
      '/v1/jobs',
      { tasks: tasks(3), service_params: { response_type: 'markdown' } },
      { 'idempotency-key': 'e2e-1' },
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'closed', task_count: 3, latest_run: { run_sequence: 1, stats: { total: 3 } } });
    const jobId = created.body.job_id as string;

    const read = await api.request('GET', `/v1/jobs/${jobId}`);
    expect(read.body).toMatchObject({ job_id: jobId, service_params: { response_type: 'markdown' } });
    expect(read.body.latest_run.status).toEqual(expect.any(String));
    const listed = await api.request('GET', '/v1/jobs?status=closed&type=regular');
    expect(listed.body.jobs.map((j: { job_id: string }) => j.job_id)).toContain(jobId);
    const results = await api.request('GET', `/v1/jobs/${jobId}/results`);
    expect(results.body.results.map((r: { external_id: string }) => r.external_id)).toEqual(['sku-0', 'sku-1', 'sku-2']);

    const again = await api.request('POST', '/v1/jobs', { tasks: tasks(1) }, { 'idempotency-key': 'e2e-1' });
    expect(again).toMatchObject({ status: 409, body: { code: 'idempotency_key_conflict' } });
  });

  it('answers 202 for 10,000 tasks and has every task row written soon after', async () => {
    const created = await api.request('POST', '/v1/jobs', { tasks: tasks(10_000) });
    expect(created.status).toBe(202);
    expect(created.body.latest_run.stats.total).toBe(10_000);
    await waitFor(async () => (await api.request('GET', `/v1/jobs/${created.body.job_id}`)).body.ingest_state === 'ready', {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'the ingest',
    });
    const last = await api.request(
      'GET',
      `/v1/jobs/${created.body.job_id}/results?cursor=` +
        (await api.request('GET', `/v1/jobs/${created.body.job_id}/results`)).body.next_cursor,
    );
    expect(last.body.results[0].external_id).toBe('sku-1000');
  });

  it('grows an open job batch by batch, closes it, and refuses tasks after', async () => {
    const created = await api.request('POST', '/v1/jobs', { status: 'open', tasks: tasks(1) });
    const jobId = created.body.job_id as string;
    const added = await api.request('POST', `/v1/jobs/${jobId}/tasks`, { tasks: tasks(2, 1) });
    expect(added.body).toMatchObject({ status: 'open', task_count: 3, latest_run: { stats: { total: 3 } } });
    expect((await api.request('POST', `/v1/jobs/${jobId}/close`)).body.status).toBe('closed');
    expect((await api.request('POST', `/v1/jobs/${jobId}/tasks`, { tasks: tasks(1) })).status).toBe(409);
    expect((await api.request('GET', '/v1/jobs?status=closed')).body.jobs.map((j: { job_id: string }) => j.job_id)).toContain(jobId);
  });

  it('sets a signed webhook once a signing key exists, and removes it', async () => {
    const { body: job } = await api.request('POST', '/v1/jobs', { tasks: tasks(1) });
    const unsigned = await api.request('PUT', `/v1/jobs/${job.job_id}/webhook`, { url: 'https://hooks.test/batch', signature: true });
    expect(unsigned).toMatchObject({ status: 400, body: { code: 'webhook_signing_requires_active_key' } });
    expect((await api.request('POST', '/v1/hmac/keys/rotate')).status).toBe(201);
    const signed = await api.request('PUT', `/v1/jobs/${job.job_id}/webhook`, { url: 'https://hooks.test/batch', signature: true });
    expect(signed.body.webhook).toEqual({ url: 'https://hooks.test/batch', signature: true });
    expect((await api.request('DELETE', `/v1/jobs/${job.job_id}/webhook`)).status).toBe(204);
    expect((await api.request('GET', `/v1/jobs/${job.job_id}`)).body.webhook).toBeUndefined();
  });

  it('creates a scheduled job whose schedule the scheduler reads, then pauses and replaces it', async () => {
    const created = await api.request('POST', '/v1/jobs', {
      type: 'scheduled',
      tasks: tasks(2),
      schedule: { calendar: { times_of_day: ['06:00'], cadence: { weekly: { days: ['mon'] } } }, timezone: 'Europe/Paris' },
    });
    expect(created.status).toBe(201);
    expect(created.body.latest_run).toBeUndefined();
    const jobId = created.body.job_id as string;
    const { rows } = await pool.query(`SELECT state, next_due_at FROM job_schedules WHERE job_id = $1`, [jobId]);
    expect(rows[0].state).toBe('active');
    expect(rows[0].next_due_at.toISOString()).toBe(created.body.schedule.next_run_at);

    const paused = await api.request('POST', `/v1/jobs/${jobId}/schedule/state`, { schedule_state: 'paused' });
    expect(paused.body.schedule).toMatchObject({ schedule_state: 'paused', next_run_at: null });
    const replaced = await api.request('PUT', `/v1/jobs/${jobId}/schedule`, { rate: { every: 1, unit: 'day' } });
    expect(replaced.body.schedule).toMatchObject({ rate: { every: 1, unit: 'day' }, schedule_state: 'paused' });
    expect((await api.request('GET', '/v1/jobs?type=scheduled')).body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([jobId]);
  });

  it('shows the tenant a due time the scheduler skipped because the previous run was still in flight', async () => {
    const owner = platform.client((await platform.createTenant({ max_active_jobs: 10 })).api_key);
    const created = await owner.request('POST', '/v1/jobs', {
      type: 'scheduled',
      tasks: tasks(2),
      schedule: { rate: { every: 1, unit: 'hour' } },
    });
    const jobId = created.body.job_id as string;
    // Rates fire hourly at the least: make a due time come now (the row the scheduler fires), twice.
    const dueNow = () => pool.query(`UPDATE job_schedules SET next_due_at = now() - interval '1 second' WHERE job_id = $1`, [jobId]);
    await dueNow();
    const first = await waitFor(async () => (await owner.request('GET', `/v1/jobs/${jobId}`)).body.latest_run, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the first scheduled run',
    });
    // No worker runs here, so that run stays in flight when the next due time comes.
    await dueNow();
    const skipped = await waitFor(
      async () => {
        const job = (await owner.request('GET', `/v1/jobs/${jobId}`)).body;
        return job.schedule.last_firing?.status === 'skipped' && job;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'the skipped firing' },
    );
    expect(skipped.schedule.last_firing).toMatchObject({ status: 'skipped', reason: 'run_in_flight' });
    expect(skipped.latest_run.run_id).toBe(first.run_id);
    const firings = await owner.request('GET', `/v1/jobs/${jobId}/schedule/firings`);
    expect(firings.body.firings.map((f: { status: string; reason?: string; run_id?: string }) => [f.status, f.reason ?? f.run_id])).toEqual(
      [
        ['skipped', 'run_in_flight'],
        ['started', first.run_id],
      ],
    );
    expect((await api.request('GET', `/v1/jobs/${jobId}/schedule/firings`)).body).toMatchObject({ status: 404, code: 'job_not_found' });
  });

  it('keeps tenants apart', async () => {
    const { body: job } = await api.request('POST', '/v1/jobs', { tasks: tasks(1) });
    const stranger = platform.client((await platform.createTenant()).api_key);
    for (const [method, path] of [
      ['GET', `/v1/jobs/${job.job_id}`],
      ['GET', `/v1/jobs/${job.job_id}/results`],
      ['POST', `/v1/jobs/${job.job_id}/close`],
      ['POST', `/v1/jobs/${job.job_id}/stop`],
    ] as const) {
      expect((await stranger.request(method, path)).body).toMatchObject({ status: 404, code: 'job_not_found' });
    }
    expect((await stranger.request('GET', '/v1/jobs')).body.jobs).toEqual([]);
  });
});
