import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '@trawl/testing';
import { bigSitePath, FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { createTestTls, WebhookReceiver } from '../fixtures/webhook-receiver';
import { ApiClient, Platform } from '../support/platform';

const CRASH_TASKS = 5_000;

/**
 * Batch runs end to end, all five services as processes: a job's tasks are fetched by the fetch
 * workers, its run completes with exact stats, and its `run.completed` webhook reaches a real HTTPS
 * receiver that verifies signatures (through a key rotation) and fails its first deliveries. Crash
 * safety: `kill -9` of a fetch worker and of a scheduler (one of two replicas) in the middle of a
 * 5,000-task run still ends with exactly one result per task and exact stats.
 */
describe('Batch runs (e2e)', () => {
  const replicas = { scheduler: 2, 'fetch-worker': 1 } as const;
  const tls = createTestTls();
  const receiver = new WebhookReceiver(tls);
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;

  beforeAll(async () => {
    // Pages 0…CRASH_TASKS: tasks fetch pages 1…CRASH_TASKS.
    web = await startFixtureWeb({ bigSitePages: CRASH_TASKS + 1 });
    await receiver.start();
    receiver.requireSignature = true;
    const caFile = tls.writeCa(join(mkdtempSync(join(tmpdir(), 'trawl-batch-')), 'ca.pem'));
    platform = new Platform('batch-runs', {
      hostMap: `${fixtureHostMap()},hooks.test=127.0.0.1`,
      // Two schedulers share dispatch and result intake; the crash test kills both.
      replicas: { scheduler: replicas.scheduler },
      env: {
        all: { SECRETS_KEY: randomBytes(32).toString('base64'), NODE_EXTRA_CA_CERTS: caFile, WEBHOOK_ATTEMPT_TIMEOUT_MS: '2000' },
        'webhook-dispatcher': { WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_POLL_INTERVAL_MS: '100' },
        'fetch-worker': { BATCH_CONCURRENCY: '32' },
        scheduler: { BATCH_TASK_LEASE_MS: '8000', BATCH_TASK_TIMEOUT_MS: '6000', BATCH_RECONCILE_INTERVAL_MS: '1000' },
      },
    });
    await platform.start();
    api = platform.client((await platform.createTenant({ concurrency: 50, max_active_jobs: 10 })).api_key);
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await receiver.stop();
    await web?.close();
  }, 60_000);

  function bigTasks(count: number) {
    return Array.from({ length: count }, (_, i) => ({
      url: web.url('big.test', bigSitePath(i + 1)),
      external_id: `page-${i + 1}`,
      metadata: { n: i + 1 },
    }));
  }

  async function waitForRunEnd(jobId: string, timeoutMs: number) {
    return waitFor(
      async () => {
        const job = await api.request('GET', `/v1/jobs/${jobId}`);
        const status = job.body.latest_run?.status;
        return ['completed', 'failed', 'stopped'].includes(status) && job.body;
      },
      { timeoutMs, intervalMs: 250, what: `job ${jobId}'s run to end` },
    );
  }

  it('runs a job to completion and delivers a signed run.completed through a key rotation and failed deliveries', async () => {
    const first = await api.request('POST', '/v1/hmac/keys/rotate');
    receiver.trust(first.body.kid, first.body.secret);
    const tasks = [
      ...bigTasks(40),
      { url: web.url('big.test', '/missing-page-404'), external_id: 'missing' },
      { url: 'http://nowhere.invalid/', external_id: 'dns' },
    ];
    const created = await api.request('POST', '/v1/jobs', {
      type: 'regular',
      status: 'closed',
      service_params: {},
      tasks,
      webhook: { url: receiver.url('/runs'), signature: true },
    });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;
    expect(created.body.latest_run.stats.total).toBe(tasks.length);

    // A rotation staged while the run is in flight: receivers trust both kids until finalize.
    const second = await api.request('POST', '/v1/hmac/keys/rotate');
    receiver.trust(second.body.kid, second.body.secret);
    receiver.failNext(2);

    const ended = await waitForRunEnd(jobId, 60_000);
    expect(ended.latest_run.status).toBe('completed');
    const stats = ended.latest_run.stats;
    expect(stats).toMatchObject({ total: tasks.length, completed: tasks.length });
    // The 404 and the unknown domain fail, and are billed as the Fetch API bills them.
    expect(stats).toMatchObject({ successful: 40, failed: 2, spend: { credits: 42 } });
    const results = await api.readAllJobResults(jobId);
    expect(results.find((r) => r.external_id === 'missing')).toMatchObject({
      status: 'failed',
      status_code: 404,
      credits: 1,
      error: { code: 'RESP002' },
    });
    expect(results.find((r) => r.external_id === 'dns')).toMatchObject({ status: 'failed', credits: 1, error: { code: 'RESP007' } });
    expect(results).toHaveLength(tasks.length);
    expect(new Set(results.map((r) => r.external_id))).toEqual(new Set(tasks.map((t) => t.external_id)));
    expect(results.find((r) => r.external_id === 'page-1')).toMatchObject({ status_code: 200, metadata: { n: 1 } });
    expect(results.filter((r) => r.status === 'successful')).toHaveLength(stats.successful);
    expect(stats.spend.credits).toBe(results.reduce((sum, r) => sum + (r.credits ?? 0), 0));

    const arrivals = await waitFor(
      () => {
        const got = receiver.received.filter((r) => r.body?.job_id === jobId);
        return got.some((r) => r.answered === 200) && got;
      },
      { timeoutMs: 30_000, what: 'run.completed to be delivered' },
    );
    expect(arrivals.map((r) => r.answered)).toEqual([500, 500, 200]);
    expect(new Set(arrivals.map((r) => r.eventId)).size).toBe(1);
    for (const arrival of arrivals) {
      expect(arrival.signature).toBe('ok');
      expect(arrival.kid).toBe(first.body.kid);
      expect(arrival.body).toMatchObject({
        schema: 'service.webhook/v1',
        event_type: 'run.completed',
        job_id: jobId,
        run_id: ended.latest_run.run_id,
        run_sequence: 1,
        stats: { total: stats.total, completed: stats.completed, successful: stats.successful, failed: stats.failed },
      });
    }
    expect((await api.request('POST', '/v1/hmac/keys/rotate/finalize')).status).toBe(200);
  }, 120_000);

  it('sends POST and PUT tasks with their bodies and content types to the target', async () => {
    const created = await api.request('POST', '/v1/jobs', {
      tasks: [
        { url: web.url('echo.test', '/echo/post'), method: 'POST', body: 'a=1&b=2', external_id: 'post-form' },
        {
          url: web.url('echo.test', '/echo/put'),
          method: 'PUT',
          body: '{"sku":42}',
          external_id: 'put-json',
          service_params: { custom_headers: { 'Content-Type': 'application/json' } },
        },
      ],
    });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;
    expect((await waitForRunEnd(jobId, 30_000)).latest_run.status).toBe('completed');
    const echoed = Object.fromEntries(
      (await api.readAllJobResults(jobId)).map((r) => {
        const text = r.encoding === 'base64' ? Buffer.from(r.content, 'base64').toString('utf8') : r.content;
        return [r.external_id, JSON.parse(text)];
      }),
    );
    expect(echoed['post-form']).toMatchObject({
      method: 'POST',
      body: 'a=1&b=2',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(echoed['put-json']).toMatchObject({ method: 'PUT', body: '{"sku":42}', headers: { 'content-type': 'application/json' } });
  }, 60_000);

  async function runThroughCrash(victim: keyof typeof replicas) {
    const created = await api.request('POST', '/v1/jobs', {
      type: 'regular',
      status: 'closed',
      service_params: {},
      tasks: bigTasks(CRASH_TASKS),
    });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;
    await waitFor(async () => (await api.request('GET', `/v1/jobs/${jobId}`)).body.latest_run.stats.completed >= CRASH_TASKS / 3, {
      timeoutMs: 90_000,
      what: 'a third of the tasks done',
    });
    // Every replica: the run must survive a moment with no scheduler (or no worker) at all, not
    // only a replica whose peer carries on.
    for (let replica = 0; replica < replicas[victim]; replica++)
      await platform.kill(replica === 0 ? victim : `${victim}-${replica}`, 'SIGKILL');
    // Proof that the kill landed mid-run: nothing is left to finish the run until a restart.
    const killedAt = (await api.request('GET', `/v1/jobs/${jobId}`)).body.latest_run;
    expect(killedAt.status).toBe('running');
    expect(killedAt.stats.completed).toBeLessThan(CRASH_TASKS);
    for (let replica = 0; replica < replicas[victim]; replica++) await platform.startService(victim, replica);
    const ended = await waitForRunEnd(jobId, 240_000);
    return { ended, results: await api.readAllJobResults(jobId) };
  }

  for (const victim of ['fetch-worker', 'scheduler'] as const) {
    it(`completes a ${CRASH_TASKS}-task run with one result per task after kill -9 of the ${victim}`, async () => {
      const { ended, results } = await runThroughCrash(victim);
      expect(ended.latest_run.status).toBe('completed');
      expect(ended.latest_run.stats).toMatchObject({
        total: CRASH_TASKS,
        completed: CRASH_TASKS,
        successful: CRASH_TASKS,
        failed: 0,
        spend: { credits: CRASH_TASKS },
      });
      expect(results).toHaveLength(CRASH_TASKS);
      const ids = results.map((r) => r.external_id);
      expect(new Set(ids).size).toBe(CRASH_TASKS);
      expect(results.every((r) => r.status === 'successful' && r.status_code === 200)).toBe(true);
    }, 400_000);
  }
});
