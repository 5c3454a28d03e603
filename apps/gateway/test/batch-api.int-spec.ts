import { randomBytes, randomUUID } from 'node:crypto';
import { waitFor } from '@trawl/testing';
import { UrlSigner } from '../src/file-transfers/url-signer';
import { Secret } from '../src/secret';
import { ADMIN_TOKEN, startTestGateway, TenantCredentials, TestGateway } from './gateway-harness';

jest.setTimeout(120_000);

describe('Batch API (gateway)', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ SECRETS_KEY: randomBytes(32).toString('base64'), BATCH_INGEST_RECOVERY_INTERVAL_MS: '200' });
  }, 60_000);

  afterAll(async () => {
    await gw?.close();
  });

  const tasks = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ url: `https://shop.test/p/${from + i}`, external_id: `e${from + i}` }));
  const call = (tenant: TenantCredentials, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    gw.request(method, path, { key: tenant.api_key, body, headers });
  const createJob = (tenant: TenantCredentials, body: Record<string, unknown>, headers?: Record<string, string>) =>
    call(tenant, 'POST', '/v1/jobs', body, headers);

  /** A tenant with a closed job of `n` tasks; answers the created job. */
  async function jobOf(n: number, extra: Record<string, unknown> = {}, tenantFields: Record<string, unknown> = {}) {
    const tenant = await gw.createTenant(tenantFields);
    const created = await createJob(tenant, { tasks: tasks(n), ...extra });
    expect(created.status).toBe(201);
    return { tenant, job: created.body, jobId: created.body.job_id as string, runId: created.body.latest_run?.run_id as string };
  }

  /** Plays the scheduler: records results on a run's tasks. */
  async function recordResults(
    runId: string,
    seqs: number[],
    result: {
      state: 'succeeded' | 'failed' | 'dispatched';
      body?: Buffer;
      contentType?: string;
      outputFormat?: string;
      credits?: number;
      errorCode?: string;
    },
  ) {
    await gw.sql.query(
      `UPDATE run_tasks SET state = $3, status_code = $4, output_format = $5, content_type = $6, body = $7, tier = $8,
              credits = $9, error_code = $10, error_detail = $11, finished_at = CASE WHEN $3 = 'dispatched' THEN NULL ELSE now() END
        WHERE run_id = $1 AND seq = ANY($2::int[])`,
      [
        runId,
        seqs,
        result.state,
        result.state === 'succeeded' ? 200 : result.state === 'failed' ? 422 : null,
        result.outputFormat ?? null,
        result.contentType ?? null,
        result.body ?? null,
        result.state === 'succeeded' ? 'basic' : null,
        result.credits ?? 0,
        result.errorCode ?? null,
        result.errorCode ? 'The target answered 500.' : null,
      ],
    );
    await gw.sql.query(
      `UPDATE job_runs SET successful = (SELECT count(*) FROM run_tasks WHERE run_id = $1 AND state IN ('succeeded', 'carried')),
                           failed = (SELECT count(*) FROM run_tasks WHERE run_id = $1 AND state = 'failed'),
                           credits = (SELECT coalesce(sum(credits), 0) FROM run_tasks WHERE run_id = $1)
        WHERE id = $1`,
      [runId],
    );
  }

  describe('POST /v1/jobs', () => {
    it('answers 201 with the job, its queued first run and Location, under 10,000 tasks', async () => {
      const tenant = await gw.createTenant();
      const res = await createJob(tenant, {
        tasks: tasks(3),
        service_params: { js_render: 'true' },
        webhook: { url: 'https://hooks.test/x' },
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('location')).toBe(`/v1/jobs/${res.body.job_id}`);
      expect(res.body).toMatchObject({
        type: 'regular',
        status: 'closed',
        service_params: { js_render: 'true' },
        file_input_id: null,
        task_count: 3,
        ingest_state: 'ready',
        webhook: { url: 'https://hooks.test/x', signature: false },
        latest_run: {
          run_sequence: 1,
          kind: 'initial',
          status: 'queued',
          stats: { total: 3, completed: 0, successful: 0, failed: 0, spend: { credits: 0, cost: 0 } },
        },
      });
      expect(res.body.latest_run.started_at).toBeUndefined();
    });

    it("takes the public SDK's `zenrows_params` for `service_params`, on the job and on a task, and answers with the specs' name", async () => {
      const tenant = await gw.createTenant();
      const res = await createJob(tenant, {
        tasks: [...tasks(1), { url: 'https://shop.test/rendered', zenrows_params: { js_render: true } }],
        zenrows_params: { premium_proxy: 'true' },
      });
      expect(res.status).toBe(201);
      expect(res.body.service_params).toEqual({ premium_proxy: 'true' });
      expect(res.body.zenrows_params).toBeUndefined();
      const { rows } = await gw.sql.query(`SELECT url, service_params FROM job_tasks WHERE job_id = $1 ORDER BY seq`, [res.body.job_id]);
      expect(rows).toEqual([
        { url: 'https://shop.test/p/0', service_params: null },
        { url: 'https://shop.test/rendered', service_params: { js_render: true } },
      ]);
      // A task's parameters under the synonym are held to the same rules.
      const open = await createJob(tenant, { status: 'open' });
      const added = await call(tenant, 'POST', `/v1/jobs/${open.body.job_id}/tasks`, {
        tasks: [{ url: 'https://shop.test/a', zenrows_params: { wait: 'soon' } }],
      });
      expect(added.body).toMatchObject({ code: 'invalid_tasks', invalid_tasks: [{ index: 0, field: 'service_params.wait' }] });
    });

    it('refuses a job or a task that gives both `service_params` and `zenrows_params`, naming them', async () => {
      const tenant = await gw.createTenant();
      const job = await createJob(tenant, { tasks: tasks(1), service_params: {}, zenrows_params: {} });
      expect(job.status).toBe(422);
      expect(job.body).toMatchObject({ code: 'invalid_parameter', parameter: 'zenrows_params' });
      expect(job.body.detail).toContain('`service_params` and `zenrows_params`');
      const task = await createJob(tenant, { tasks: [{ url: 'https://shop.test/a', service_params: {}, zenrows_params: {} }] });
      expect(task.body).toMatchObject({ code: 'invalid_tasks', invalid_tasks: [{ index: 0, field: 'zenrows_params' }] });
      expect(task.body.invalid_tasks[0].reason).toContain('`service_params` and `zenrows_params`');
    });

    it('answers 202 at exactly 10,000 tasks with stats.total exact, and the rows all arrive', async () => {
      const tenant = await gw.createTenant();
      const res = await createJob(tenant, { tasks: tasks(10_000) });
      expect(res.status).toBe(202);
      expect(res.body.latest_run.stats.total).toBe(10_000);
      const ready = await waitFor(
        async () => {
          const job = await call(tenant, 'GET', `/v1/jobs/${res.body.job_id}`);
          return job.body.ingest_state === 'ready' && job.body;
        },
        { timeoutMs: 30_000, what: 'the job to be ready' },
      );
      expect(ready.task_count).toBe(10_000);
      const { rows } = await gw.sql.query(`SELECT count(*)::int AS n FROM run_tasks WHERE run_id = $1`, [res.body.latest_run.run_id]);
      expect(rows[0].n).toBe(10_000);
    });

    it('takes 100,000 inline tasks in one body (over the 1 MiB default limit) and ingests them all', async () => {
      const tenant = await gw.createTenant();
      const res = await createJob(tenant, { tasks: tasks(100_000) });
      expect(res.status).toBe(202);
      expect(res.body).toMatchObject({ task_count: 100_000, latest_run: { stats: { total: 100_000 } } });
      await waitFor(async () => (await call(tenant, 'GET', `/v1/jobs/${res.body.job_id}`)).body.ingest_state === 'ready', {
        timeoutMs: 90_000,
        intervalMs: 250,
        what: 'the 100k ingest',
      });
      const { rows } = await gw.sql.query(`SELECT count(*)::int AS n, max(seq) AS last FROM run_tasks WHERE run_id = $1`, [
        res.body.latest_run.run_id,
      ]);
      expect(rows[0]).toEqual({ n: 100_000, last: 100_000 });
    });

    it('refuses more than 100,000 tasks', async () => {
      const tenant = await gw.createTenant();
      const res = await createJob(tenant, { tasks: Array.from({ length: 100_001 }, () => ({ url: 'https://shop.test/' })) });
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ code: 'invalid_parameter', parameter: 'tasks' });
    });

    it('answers 400 invalid_tasks as problem+json naming each bad task, and creates nothing', async () => {
      const tenant = await gw.createTenant();
      const res = await createJob(tenant, {
        tasks: [{ url: 'https://shop.test/a' }, { url: 'ftp://shop.test/b' }, { url: 'https://shop.test/c', body: 'x' }],
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({
        code: 'invalid_tasks',
        status: 400,
        invalid_task_count: 2,
        invalid_tasks: [expect.objectContaining({ index: 1, field: 'url' }), expect.objectContaining({ index: 2, field: 'body' })],
      });
      expect((await call(tenant, 'GET', '/v1/jobs')).body.jobs).toEqual([]);
    });

    it('shares the active-job limit with crawls both ways: 429 quota_exceeded with Retry-After: 30', async () => {
      const tenant = await gw.createTenant({ max_active_jobs: 2 });
      expect((await call(tenant, 'POST', '/v1/crawls', { url: 'http://shop.test/' })).status).toBe(202);
      expect((await createJob(tenant, { tasks: tasks(1) })).status).toBe(201);
      const refused = await createJob(tenant, { tasks: tasks(1) });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.body.code).toBe('quota_exceeded');
      // The job's run holds a slot a crawl cannot take either.
      expect((await call(tenant, 'POST', '/v1/crawls', { url: 'http://shop.test/2' })).body.code).toBe('too_many_crawls');
    });

    it('uses an Idempotency-Key once: a reuse is 409 idempotency_key_conflict naming the first job, even with the same body', async () => {
      const tenant = await gw.createTenant();
      const headers = { 'idempotency-key': 'order-42' };
      const first = await createJob(tenant, { tasks: tasks(1) }, headers);
      expect(first.status).toBe(201);
      const again = await createJob(tenant, { tasks: tasks(1) }, headers);
      expect(again.status).toBe(409);
      expect(again.headers.get('content-type')).toContain('application/problem+json');
      expect(again.body).toMatchObject({ code: 'idempotency_key_conflict', status: 409, job_id: first.body.job_id });
      expect((await call(tenant, 'GET', '/v1/jobs')).body.jobs).toHaveLength(1);
      // What a client whose first answer was lost does next: read the job the key names.
      expect(await call(tenant, 'GET', `/v1/jobs/${again.body.job_id}`)).toMatchObject({
        status: 200,
        body: { job_id: first.body.job_id, task_count: 1 },
      });
    });

    it("treats an Idempotency-Key another tenant used as unused: 201, and this tenant's reuse names its own job", async () => {
      const headers = { 'idempotency-key': 'order-shared' };
      const other = await gw.createTenant();
      const othersJob = await createJob(other, { tasks: tasks(1) }, headers);
      expect(othersJob.status).toBe(201);
      const tenant = await gw.createTenant();
      const own = await createJob(tenant, { tasks: tasks(2) }, headers);
      expect(own.status).toBe(201);
      expect(own.body.job_id).not.toBe(othersJob.body.job_id);
      const again = await createJob(tenant, { tasks: tasks(2) }, headers);
      expect(again).toMatchObject({ status: 409, body: { code: 'idempotency_key_conflict', job_id: own.body.job_id } });
    });

    it('answers a reused Idempotency-Key 409 idempotency_key_conflict even at the active-job limit', async () => {
      const tenant = await gw.createTenant({ max_active_jobs: 1 });
      const headers = { 'idempotency-key': 'order-43' };
      const first = await createJob(tenant, { tasks: tasks(1) }, headers);
      expect(first.status).toBe(201);
      // The first job holds the only slot: the key is looked at before the limit.
      const again = await createJob(tenant, { tasks: tasks(1) }, headers);
      expect(again).toMatchObject({ status: 409, body: { code: 'idempotency_key_conflict', job_id: first.body.job_id } });
      expect((await createJob(tenant, { tasks: tasks(1) }, { 'idempotency-key': 'order-44' })).body.code).toBe('quota_exceeded');
    });

    it('answers a reused Idempotency-Key 409 even when the resent body is refused; an unused key gets the refusal', async () => {
      const tenant = await gw.createTenant();
      const headers = { 'idempotency-key': 'order-45' };
      const first = await createJob(tenant, { tasks: tasks(1) }, headers);
      expect(first.status).toBe(201);
      const badTask = { tasks: [{ url: 'ftp://shop.test/' }] };
      const unsignable = { tasks: tasks(1), webhook: { url: 'https://hooks.test/x', signature: true } };
      const misshapen = { type: 'sometimes', tasks: tasks(1) };
      for (const body of [badTask, unsignable, misshapen]) {
        expect(await createJob(tenant, body, headers)).toMatchObject({
          status: 409,
          body: { code: 'idempotency_key_conflict', job_id: first.body.job_id },
        });
      }
      expect((await createJob(tenant, badTask, { 'idempotency-key': 'order-46' })).body.code).toBe('invalid_tasks');
      expect((await createJob(tenant, unsignable, { 'idempotency-key': 'order-47' })).body.code).toBe(
        'webhook_signing_requires_active_key',
      );
    });

    it('refuses an http webhook and a signed one without an active key; accepts it once a key exists', async () => {
      const tenant = await gw.createTenant();
      const http = await createJob(tenant, { tasks: tasks(1), webhook: { url: 'http://hooks.test/x' } });
      expect(http).toMatchObject({ status: 400, body: { code: 'callback_url_must_be_https' } });
      const signed = { tasks: tasks(1), webhook: { url: 'https://hooks.test/x', signature: true } };
      expect((await createJob(tenant, signed)).body.code).toBe('webhook_signing_requires_active_key');
      expect((await call(tenant, 'POST', '/v1/hmac/keys/rotate')).status).toBe(201);
      expect((await createJob(tenant, signed)).body.webhook).toEqual({ url: 'https://hooks.test/x', signature: true });
    });

    it('answers 401 without an API key', async () => {
      expect((await gw.request('POST', '/v1/jobs', { body: { tasks: tasks(1) } })).status).toBe(401);
      expect((await gw.request('GET', '/v1/jobs')).status).toBe(401);
    });
  });

  describe('GET /v1/jobs and GET /v1/jobs/{id}', () => {
    it('lists newest first, pages with next_cursor and filters by status and type', async () => {
      const tenant = await gw.createTenant({ max_active_jobs: 10 });
      const ids: string[] = [];
      for (const status of ['closed', 'open', 'closed']) ids.push((await createJob(tenant, { status, tasks: tasks(1) })).body.job_id);
      const first = await call(tenant, 'GET', '/v1/jobs?limit=2');
      expect(first.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[2], ids[1]]);
      expect(first.body.jobs[0].latest_run.status).toBe('queued');
      const rest = await call(tenant, 'GET', `/v1/jobs?limit=2&cursor=${first.body.next_cursor}`);
      expect(rest.body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[0]]);
      expect(rest.body.next_cursor).toBeNull();
      expect((await call(tenant, 'GET', '/v1/jobs?status=open')).body.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([ids[1]]);
      expect((await call(tenant, 'GET', '/v1/jobs?type=scheduled')).body.jobs).toEqual([]);
      expect((await call(tenant, 'GET', '/v1/jobs?status=running')).body).toMatchObject({ code: 'invalid_request', parameter: 'status' });
      expect((await call(tenant, 'GET', '/v1/jobs?cursor=nope')).body).toMatchObject({ status: 400, code: 'invalid_cursor' });
    });

    it('answers 404 job_not_found for an unknown id, a malformed one and another tenant’s job', async () => {
      const { tenant, jobId } = await jobOf(1);
      const other = await gw.createTenant();
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}`)).status).toBe(200);
      for (const [who, id] of [
        [tenant, randomUUID()],
        [tenant, 'not-an-id'],
        [other, jobId],
      ] as const) {
        const res = await call(who, 'GET', `/v1/jobs/${id}`);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('job_not_found');
      }
      expect((await call(other, 'GET', '/v1/jobs')).body.jobs).toEqual([]);
    });
  });

  describe('GET /v1/jobs/{id}/results', () => {
    it('pages about 1,000 results with a cursor, text as strings and binaries as base64, and filters status=successful', async () => {
      const { tenant, jobId, runId } = await jobOf(2_500, {
        tasks: tasks(2_500).map((t, i) => (i === 0 ? { ...t, metadata: { sku: 7 } } : t)),
      });
      const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0xfe]);
      await recordResults(runId, [1], {
        state: 'succeeded',
        body: Buffer.from('<h1>héllo</h1>'),
        contentType: 'text/html; charset=utf-8',
        outputFormat: 'html',
        credits: 1,
      });
      await recordResults(runId, [2], { state: 'succeeded', body: pdf, contentType: 'application/pdf', outputFormat: 'pdf', credits: 5 });
      await recordResults(runId, [3], { state: 'failed', errorCode: 'RESP001' });
      await recordResults(runId, [2_400], {
        state: 'succeeded',
        body: Buffer.from('# md'),
        contentType: 'text/markdown',
        outputFormat: 'markdown',
        credits: 1,
      });

      const first = await call(tenant, 'GET', `/v1/jobs/${jobId}/results`);
      expect(first.status).toBe(200);
      expect(first.body.results).toHaveLength(1_000);
      expect(first.body.run).toMatchObject({
        run_id: runId,
        stats: { total: 2_500, completed: 4, successful: 3, failed: 1, spend: { credits: 7 } },
      });
      const [html, binary, failed, queued] = first.body.results;
      expect(html).toMatchObject({
        seq: 1,
        url: 'https://shop.test/p/0',
        external_id: 'e0',
        metadata: { sku: 7 },
        method: 'GET',
        status: 'successful',
        status_code: 200,
        output_format: 'html',
        content_type: 'text/html; charset=utf-8',
        content: '<h1>héllo</h1>',
        encoding: 'utf8',
        credits: 1,
      });
      expect(html.finished_at).toEqual(expect.any(String));
      expect(binary).toMatchObject({ status: 'successful', output_format: 'pdf', encoding: 'base64' });
      expect(Buffer.from(binary.content, 'base64')).toEqual(pdf);
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'RESP001', detail: 'The target answered 500.' }, credits: 0 });
      expect(queued).toMatchObject({ seq: 4, status: 'queued', external_id: 'e3' });
      expect(queued.content).toBeUndefined();

      const second = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?cursor=${first.body.next_cursor}`);
      expect(second.body.results[0].seq).toBe(1_001);
      const third = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?cursor=${second.body.next_cursor}`);
      expect(third.body.results).toHaveLength(500);
      expect(third.body.results.at(-1).seq).toBe(2_500);
      // A closed job's run can gain no task: the end is the end.
      expect(third.body.next_cursor).toBeNull();

      // Stopped, the run's queued tasks can no longer succeed: the filtered list is final.
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      const successful = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?status=successful`);
      expect(successful.body.results.map((r: { seq: number }) => r.seq)).toEqual([1, 2, 2_400]);
      expect(successful.body.next_cursor).toBeNull();
      const paged = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?status=successful&limit=2`);
      expect(paged.body.results.map((r: { seq: number }) => r.seq)).toEqual([1, 2]);
      const after = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?status=successful&limit=2&cursor=${paged.body.next_cursor}`);
      expect(after.body.results.map((r: { seq: number }) => r.seq)).toEqual([2_400]);
    });

    it('reads the run named by run_id, and refuses bad run ids, cursors and parameters', async () => {
      const { tenant, jobId, runId } = await jobOf(2);
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      const rerun = await call(tenant, 'POST', `/v1/jobs/${jobId}/rerun`);
      expect(rerun.status).toBe(201);
      await recordResults(runId, [1], { state: 'succeeded', body: Buffer.from('old'), contentType: 'text/plain' });
      const latest = await call(tenant, 'GET', `/v1/jobs/${jobId}/results`);
      expect(latest.body.run.run_id).toBe(rerun.body.run_id);
      expect(latest.body.results[0].status).toBe('queued');
      const old = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?run_id=${runId}`);
      expect(old.body.results[0]).toMatchObject({ status: 'successful', content: 'old' });
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/results?run_id=${randomUUID()}`)).body).toMatchObject({
        status: 404,
        code: 'run_not_found',
      });
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/results?cursor=xyz`)).body.code).toBe('invalid_cursor');
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/results?status=failed`)).body.code).toBe('invalid_request');
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/results?limit=1001`)).body.code).toBe('invalid_request');
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/results?page=2`)).body.code).toBe('unknown_parameter');
    });

    it('with status=successful, never ends the list or passes a task while the run may still answer it', async () => {
      const { tenant, jobId, runId } = await jobOf(5);
      const ok = { state: 'succeeded', body: Buffer.from('ok'), contentType: 'text/plain', credits: 1 } as const;
      await recordResults(runId, [1, 4], ok);
      await recordResults(runId, [2], { state: 'failed', errorCode: 'RESP001' });
      await recordResults(runId, [3], { state: 'dispatched' });
      // seq 5 stays queued; the run is in flight and the job closed.
      const successful = (cursor?: string) =>
        call(tenant, 'GET', `/v1/jobs/${jobId}/results?status=successful${cursor ? `&cursor=${cursor}` : ''}`);
      const seqs = (page: { body: { results: { seq: number }[] } }) => page.body.results.map((r) => r.seq);

      const first = await successful();
      expect(seqs(first)).toEqual([1]); // 4 waits behind 3, which may still succeed
      expect(first.body.next_cursor).toEqual(expect.any(String));
      const waiting = await successful(first.body.next_cursor);
      expect(seqs(waiting)).toEqual([]);
      expect(waiting.body.next_cursor).toEqual(expect.any(String));

      await recordResults(runId, [3], ok);
      const second = await successful(waiting.body.next_cursor);
      expect(seqs(second)).toEqual([3, 4]);
      // 5 is still queued: the list is not over.
      expect(second.body.next_cursor).toEqual(expect.any(String));

      await recordResults(runId, [5], ok);
      await gw.sql.query(`UPDATE job_runs SET status = 'completed', finished_at = now() WHERE id = $1`, [runId]);
      const last = await successful(second.body.next_cursor);
      expect(seqs(last)).toEqual([5]);
      expect(last.body.next_cursor).toBeNull();
    });

    it('with status=successful, waits on a stopped run’s claims still out, not on its queued tasks', async () => {
      const { tenant, jobId, runId } = await jobOf(3);
      await recordResults(runId, [1], { state: 'dispatched' });
      await recordResults(runId, [3], { state: 'succeeded', body: Buffer.from('ok'), contentType: 'text/plain' });
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      const held = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?status=successful`);
      expect(held.body).toMatchObject({ results: [], next_cursor: expect.any(String) });
      // The worker's answer comes after the stop and is recorded; seq 2 stays queued for good.
      await recordResults(runId, [1], { state: 'succeeded', body: Buffer.from('late'), contentType: 'text/plain' });
      const rest = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?status=successful&cursor=${held.body.next_cursor}`);
      expect(rest.body.results.map((r: { seq: number }) => r.seq)).toEqual([1, 3]);
      expect(rest.body.next_cursor).toBeNull();
    });

    it('keeps handing out a cursor while the job is open', async () => {
      const tenant = await gw.createTenant();
      const { body: job } = await createJob(tenant, { status: 'open', tasks: tasks(1) });
      const page = await call(tenant, 'GET', `/v1/jobs/${job.job_id}/results`);
      expect(page.body.results).toHaveLength(1);
      expect(page.body.next_cursor).toEqual(expect.any(String));
      await call(tenant, 'POST', `/v1/jobs/${job.job_id}/tasks`, { tasks: tasks(1, 1), last_batch: true });
      const next = await call(tenant, 'GET', `/v1/jobs/${job.job_id}/results?cursor=${page.body.next_cursor}`);
      expect(next.body.results.map((r: { url: string }) => r.url)).toEqual(['https://shop.test/p/1']);
      expect(next.body.next_cursor).toBeNull();
    });
  });

  describe("a task's own content (task_id, result_url)", () => {
    it('names each result by task and run, and serves its content by the key, per run, and by a signed result_url without one', async () => {
      const { tenant, jobId, runId } = await jobOf(3);
      await recordResults(runId, [1], { state: 'succeeded', body: Buffer.from('<h1>one</h1>'), contentType: 'text/html; charset=utf-8' });
      await recordResults(runId, [2], { state: 'failed', errorCode: 'RESP001' });
      const page = await call(tenant, 'GET', `/v1/jobs/${jobId}/results`);
      const [ok, failed, queued] = page.body.results;
      expect(ok).toMatchObject({
        task_id: '1',
        run_id: runId,
        result_url: expect.stringMatching(
          new RegExp(`^${gw.baseUrl}/downloads/task_contents/${tenant.tenant_id}/${runId}/1\\?expires=\\d+&signature=`),
        ),
      });
      expect([failed.task_id, failed.result_url, queued.task_id, queued.result_url]).toEqual(['2', undefined, '3', undefined]);

      // By the result_url alone: no API key, the bytes and media type as stored.
      const signed = await fetch(ok.result_url);
      expect([signed.status, signed.headers.get('content-type'), await signed.text()]).toEqual([
        200,
        'text/html; charset=utf-8',
        '<h1>one</h1>',
      ]);
      const forged = await fetch(ok.result_url.replace(/signature=[^&]+/, 'signature=AAAA'));
      expect(forged.status).toBe(404);
      const otherTask = await fetch(ok.result_url.replace(`/${runId}/1?`, `/${runId}/2?`));
      expect(otherTask.status).toBe(404);

      // By the API key, in the latest run and in a named one.
      const latest = await call(tenant, 'GET', `/v1/jobs/${jobId}/tasks/1/content`);
      expect([latest.status, latest.text]).toEqual([200, '<h1>one</h1>']);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${runId}/tasks/1/content`)).text).toBe('<h1>one</h1>');
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/tasks/2/content`)).body).toMatchObject({
        status: 409,
        code: 'task_has_no_content',
        task_status: 'failed',
      });
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/tasks/3/content`)).body).toMatchObject({
        code: 'task_has_no_content',
        task_status: 'queued',
      });
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/tasks/9/content`)).body.code).toBe('task_not_found');
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/tasks/x/content`)).body.code).toBe('task_not_found');
      expect((await call(await gw.createTenant(), 'GET', `/v1/jobs/${jobId}/tasks/1/content`)).body.code).toBe('job_not_found');

      // The run-scoped results page is the same page.
      const scoped = await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${runId}/results?status=successful`);
      expect(scoped.body.results.map((result: { task_id: string }) => result.task_id)).toEqual(['1']);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${runId}/results?run_id=${runId}`)).body.code).toBe('unknown_parameter');
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${randomUUID()}/results`)).body.code).toBe('run_not_found');
    });

    it("answers a task's attempts, oldest first, in the latest run or a given one", async () => {
      const { tenant, jobId, runId } = await jobOf(2);
      // As the scheduler writes them: a lease that ran out, then the answer that counted.
      await gw.sql.query(
        `INSERT INTO run_task_attempts (run_id, seq, attempt, started_at, ended_at, outcome, error_code, error_detail, credits) VALUES
           ($1, 1, 1, '2026-11-28T10:00:00Z', '2026-11-28T10:05:00Z', 'lease_expired', 'task_lease_expired', 'No answer.', 0),
           ($1, 1, 2, '2026-11-28T10:05:01Z', '2026-11-28T10:05:03Z', 'succeeded', NULL, NULL, 5)`,
        [runId],
      );
      const history = await call(tenant, 'GET', `/v1/jobs/${jobId}/tasks/1/history`);
      expect(history.body).toEqual({
        events: [
          {
            attempt: 1,
            started_at: '2026-11-28T10:00:00.000Z',
            ended_at: '2026-11-28T10:05:00.000Z',
            outcome: 'lease_expired',
            error: { code: 'task_lease_expired', detail: 'No answer.' },
            spend: { credits: 0, cost: 0 },
          },
          {
            attempt: 2,
            started_at: '2026-11-28T10:05:01.000Z',
            ended_at: '2026-11-28T10:05:03.000Z',
            outcome: 'succeeded',
            spend: { credits: 5, cost: expect.any(Number) },
          },
        ],
      });
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${runId}/tasks/1/history`)).body).toEqual(history.body);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/tasks/2/history`)).body).toEqual({ events: [] });
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/tasks/3/history`)).body.code).toBe('task_not_found');
      expect((await call(await gw.createTenant(), 'GET', `/v1/jobs/${jobId}/tasks/1/history`)).body.code).toBe('job_not_found');
    });

    it('answers 410 for a result_url past its expiry, and 404 once the run is deleted', async () => {
      const { tenant, jobId, runId } = await jobOf(1);
      await recordResults(runId, [1], { state: 'succeeded', body: Buffer.from('x'), contentType: 'text/plain' });
      const url = new URL((await call(tenant, 'GET', `/v1/jobs/${jobId}/results`)).body.results[0].result_url);
      // Signed as the gateway signs (its key derives from the admin token), with an expiry passed.
      const past = UrlSigner.fromSecrets(undefined, new Secret(ADMIN_TOKEN)).signedPath('GET', url.pathname, new Date(Date.now() - 1_000));
      expect((await fetch(`${gw.baseUrl}${past}`)).status).toBe(410);
      await gw.sql.query(`UPDATE job_runs SET status = 'completed', finished_at = now() WHERE id = $1`, [runId]);
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}/runs/${runId}`)).status).toBe(204);
      expect((await fetch(url)).status).toBe(404);
    });
  });

  describe('POST /v1/jobs/{id}/tasks and /close', () => {
    it('adds tasks to an open job and its run; last_batch closes it; a closed job answers 409 job_closed', async () => {
      const tenant = await gw.createTenant();
      const { body: job } = await createJob(tenant, { status: 'open' });
      expect(job).toMatchObject({ status: 'open', task_count: 0, latest_run: { stats: { total: 0 } } });
      const added = await call(tenant, 'POST', `/v1/jobs/${job.job_id}/tasks`, { tasks: tasks(2) });
      expect(added).toMatchObject({
        status: 200,
        body: { status: 'open', task_count: 2, tasks_added: 2, latest_run: { stats: { total: 2 } } },
      });
      const last = await call(tenant, 'POST', `/v1/jobs/${job.job_id}/tasks`, { tasks: tasks(1, 2), last_batch: true });
      expect(last.body).toMatchObject({ status: 'closed', task_count: 3 });
      const refused = await call(tenant, 'POST', `/v1/jobs/${job.job_id}/tasks`, { tasks: tasks(1) });
      expect(refused).toMatchObject({ status: 409, body: { code: 'job_closed' } });
    });

    it('answers 409 job_ingesting while a large submission is being written, and checks the batch', async () => {
      const tenant = await gw.createTenant();
      const { body: job } = await createJob(tenant, { status: 'open', tasks: tasks(1) });
      await gw.sql.query(`UPDATE jobs SET ingest_state = 'ingesting' WHERE id = $1`, [job.job_id]);
      const refused = await call(tenant, 'POST', `/v1/jobs/${job.job_id}/tasks`, { tasks: tasks(1) });
      expect(refused).toMatchObject({ status: 409, body: { code: 'job_ingesting' } });
      expect(refused.headers.get('retry-after')).toBe('5');
      await gw.sql.query(`UPDATE jobs SET ingest_state = 'ready' WHERE id = $1`, [job.job_id]);
      const tooMany = await call(tenant, 'POST', `/v1/jobs/${job.job_id}/tasks`, { tasks: tasks(10_001) });
      expect(tooMany.body).toMatchObject({ code: 'invalid_parameter', parameter: 'tasks' });
      expect((await call(tenant, 'POST', `/v1/jobs/${job.job_id}/tasks`, { tasks: [{ url: 'nope' }] })).body.code).toBe('invalid_tasks');
    });

    it('closes an open job (twice is fine) and takes no body', async () => {
      const tenant = await gw.createTenant();
      const { body: job } = await createJob(tenant, { status: 'open' });
      expect((await call(tenant, 'POST', `/v1/jobs/${job.job_id}/close`, { x: 1 })).body.code).toBe('unknown_parameter');
      expect((await call(tenant, 'POST', `/v1/jobs/${job.job_id}/close`)).body.status).toBe('closed');
      expect((await call(tenant, 'POST', `/v1/jobs/${job.job_id}/close`)).status).toBe(200);
      // As a browser's fetch(url, { method: 'POST', body: '' }) sends it.
      const empty = await fetch(`${gw.baseUrl}/v1/jobs/${job.job_id}/close`, {
        method: 'POST',
        headers: { 'x-api-key': tenant.api_key, 'content-type': 'text/plain;charset=UTF-8' },
        body: '',
      });
      expect(empty.status).toBe(200);
      expect((await call(await gw.createTenant(), 'POST', `/v1/jobs/${job.job_id}/close`)).body.code).toBe('job_not_found');
    });
  });

  describe('stop, cancel, pause, resume', () => {
    it('pauses a queued run and resumes it to queued; a started run resumes to running', async () => {
      const { tenant, jobId } = await jobOf(2);
      const paused = await call(tenant, 'POST', `/v1/jobs/${jobId}/pause`);
      expect(paused).toMatchObject({ status: 200, body: { status: 'paused', run_sequence: 1 } });
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/pause`)).body.status).toBe('paused');
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/resume`)).body.status).toBe('queued');
      // The scheduler starts it.
      await gw.sql.query(`UPDATE job_runs SET status = 'running', started_at = now() WHERE job_id = $1`, [jobId]);
      await call(tenant, 'POST', `/v1/jobs/${jobId}/pause`);
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/resume`)).body).toMatchObject({
        status: 'running',
        started_at: expect.any(String),
      });
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/resume`)).body.status).toBe('running');
    });

    it('stops the run in flight for good (cancel is an alias); then every control answers 409 no_run_in_flight', async () => {
      const { tenant, jobId } = await jobOf(2);
      const stopped = await call(tenant, 'POST', `/v1/jobs/${jobId}/cancel`);
      expect(stopped).toMatchObject({ status: 200, body: { status: 'stopped', finished_at: expect.any(String) } });
      for (const action of ['stop', 'cancel', 'pause', 'resume']) {
        const res = await call(tenant, 'POST', `/v1/jobs/${jobId}/${action}`);
        expect(res).toMatchObject({ status: 409, body: { code: 'no_run_in_flight' } });
      }
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}`)).body.latest_run.status).toBe('stopped');
    });

    it('stops a paused run, frees its active-job slot, and answers 404 for another tenant', async () => {
      const { tenant, jobId } = await jobOf(1, {}, { max_active_jobs: 1 });
      expect((await call(await gw.createTenant(), 'POST', `/v1/jobs/${jobId}/stop`)).body.code).toBe('job_not_found');
      await call(tenant, 'POST', `/v1/jobs/${jobId}/pause`);
      expect((await createJob(tenant, { tasks: tasks(1) })).body.code).toBe('quota_exceeded');
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`)).body.status).toBe('stopped');
      expect((await createJob(tenant, { tasks: tasks(1) })).status).toBe(201);
    });
  });

  describe('DELETE /v1/jobs/{id} and /v1/jobs/{id}/runs/{run}', () => {
    it('refuses to delete a job while its run is in flight, then deletes it with everything of it', async () => {
      const { tenant, jobId, runId } = await jobOf(2);
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}`)).body).toMatchObject({ status: 409, code: 'run_in_flight', run_id: runId });
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      await recordResults(runId, [1], { state: 'succeeded', body: Buffer.from('kept until now'), contentType: 'text/plain' });
      expect((await call(await gw.createTenant(), 'DELETE', `/v1/jobs/${jobId}`)).body.code).toBe('job_not_found');
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}`, { x: 1 })).body.code).toBe('unknown_parameter');
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}`)).status).toBe(204);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}`)).body.code).toBe('job_not_found');
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}`)).body.code).toBe('job_not_found');
      const { rows } = await gw.sql.query(
        `SELECT (SELECT count(*) FROM job_tasks WHERE job_id = $1)::int AS tasks, (SELECT count(*) FROM job_runs WHERE job_id = $1)::int AS runs,
                (SELECT count(*) FROM run_tasks WHERE run_id = $2)::int AS results`,
        [jobId, runId],
      );
      expect(rows[0]).toEqual({ tasks: 0, runs: 0, results: 0 });
      // The job's slot is free again.
      expect((await call(tenant, 'GET', '/v1/jobs')).body.jobs).toEqual([]);
    });

    it("deletes an ended run's results and exports; the run stays listed as deleted with its counts", async () => {
      const { tenant, jobId, runId } = await jobOf(2);
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}/runs/${runId}`)).body).toMatchObject({ status: 409, code: 'run_in_flight' });
      await recordResults(runId, [1, 2], { state: 'succeeded', body: Buffer.from('old'), contentType: 'text/plain', credits: 1 });
      await gw.sql.query(`UPDATE job_runs SET status = 'completed', finished_at = now() WHERE id = $1`, [runId]);
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}/runs/${randomUUID()}`)).body.code).toBe('run_not_found');
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}/runs/${runId}`)).status).toBe(204);
      const run = await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${runId}`);
      expect(run.body).toMatchObject({ status: 'deleted', stats: { total: 2, successful: 2, completed: 2 } });
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/results?run_id=${runId}`)).body.results).toEqual([]);
      // Again: nothing changes.
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}/runs/${runId}`)).status).toBe(204);
      // The job itself stays, and can run again.
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/rerun`)).status).toBe(201);
    });
  });

  describe('runs: list, rerun, retry-failed', () => {
    it('refuses a rerun while a run is in flight, then numbers the next run and lists runs newest first', async () => {
      const { tenant, jobId, runId } = await jobOf(3);
      const busy = await call(tenant, 'POST', `/v1/jobs/${jobId}/rerun`);
      expect(busy).toMatchObject({ status: 409, body: { code: 'run_in_flight', run_id: runId } });
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      const rerun = await call(tenant, 'POST', `/v1/jobs/${jobId}/rerun`);
      expect(rerun).toMatchObject({ status: 201, body: { run_sequence: 2, kind: 'rerun', status: 'queued', stats: { total: 3 } } });
      const { rows } = await gw.sql.query(`SELECT source_run_id FROM job_runs WHERE id = $1`, [rerun.body.run_id]);
      expect(rows[0].source_run_id).toBe(runId);
      const first = await call(tenant, 'GET', `/v1/jobs/${jobId}/runs?limit=1`);
      expect(first.body.runs.map((r: { run_sequence: number }) => r.run_sequence)).toEqual([2]);
      const second = await call(tenant, 'GET', `/v1/jobs/${jobId}/runs?limit=1&cursor=${first.body.next_cursor}`);
      expect(second.body).toMatchObject({ runs: [{ run_id: runId, status: 'stopped' }], next_cursor: null });
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${runId}`)).body.run_sequence).toBe(1);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${randomUUID()}`)).body.code).toBe('run_not_found');
      expect((await call(await gw.createTenant(), 'GET', `/v1/jobs/${jobId}/runs`)).body.code).toBe('job_not_found');
    });

    it('counts a rerun against the active-job limit shared with crawls', async () => {
      const { tenant, jobId } = await jobOf(1, {}, { max_active_jobs: 1 });
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      expect((await call(tenant, 'POST', '/v1/crawls', { url: 'http://shop.test/' })).status).toBe(202);
      const refused = await call(tenant, 'POST', `/v1/jobs/${jobId}/rerun`);
      expect(refused).toMatchObject({ status: 429, body: { code: 'quota_exceeded' } });
      expect(refused.headers.get('retry-after')).toBe('30');
    });

    it('retry-failed carries successful results over, unbilled, and re-queues the failed (and, if asked, the never-started)', async () => {
      const { tenant, jobId, runId } = await jobOf(6);
      await recordResults(runId, [1, 2], {
        state: 'succeeded',
        body: Buffer.from('kept'),
        contentType: 'text/html',
        outputFormat: 'html',
        credits: 5,
      });
      await recordResults(runId, [3, 4], { state: 'failed', errorCode: 'RESP001' });
      await recordResults(runId, [5], { state: 'dispatched' });
      await gw.sql.query(`UPDATE run_tasks SET lease_until = now() - interval '1 second' WHERE run_id = $1 AND seq = 5`, [runId]);
      // seq 6 stays queued.
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/retry-failed`)).body.code).toBe('run_in_flight');
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);

      const retry = await call(tenant, 'POST', `/v1/jobs/${jobId}/retry-failed`);
      expect(retry).toMatchObject({
        status: 201,
        body: {
          run_sequence: 2,
          kind: 'retry_failed',
          status: 'queued',
          stats: { total: 4, completed: 2, successful: 2, failed: 0, spend: { credits: 0 } },
        },
      });
      const results = await call(tenant, 'GET', `/v1/jobs/${jobId}/results`);
      expect(results.body.results.map((r: { seq: number; status: string }) => [r.seq, r.status])).toEqual([
        [1, 'successful'],
        [2, 'successful'],
        [3, 'queued'],
        [4, 'queued'],
      ]);
      expect(results.body.results[0]).toMatchObject({ carried_over: true, content: 'kept', output_format: 'html', credits: 0 });
      expect(results.body.results[2].error).toBeUndefined();

      // Its failed task fails again; the next retry also takes what it never started when asked.
      const secondRunId = retry.body.run_id as string;
      await recordResults(secondRunId, [3], { state: 'failed', errorCode: 'RESP001' });
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      const withNotStarted = await call(tenant, 'POST', `/v1/jobs/${jobId}/retry-failed`, { include_not_started: true });
      expect(withNotStarted.body).toMatchObject({ run_sequence: 3, stats: { total: 4, successful: 2 } });
      const third = await call(tenant, 'GET', `/v1/jobs/${jobId}/results?status=successful`);
      expect(third.body.results.map((r: { seq: number; carried_over?: boolean }) => [r.seq, r.carried_over])).toEqual([
        [1, true],
        [2, true],
      ]);
    });

    it('waits for claims of the latest run still out on workers, and queues again only what no worker holds', async () => {
      const { tenant, jobId, runId } = await jobOf(4);
      await recordResults(runId, [1], { state: 'failed', errorCode: 'RESP001' });
      await recordResults(runId, [2, 3], { state: 'dispatched' });
      await gw.sql.query(
        `UPDATE run_tasks SET lease_until = now() + CASE seq WHEN 2 THEN interval '10 minutes' ELSE interval '-1 second' END
          WHERE run_id = $1 AND seq IN (2, 3)`,
        [runId],
      );
      // seq 4 stays queued.
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      // A worker may still be fetching seq 2 for the stopped run, which would record and bill it.
      for (const include_not_started of [true, false]) {
        const refused = await call(tenant, 'POST', `/v1/jobs/${jobId}/retry-failed`, { include_not_started });
        expect(refused).toMatchObject({ status: 409, body: { code: 'run_in_flight', run_id: runId, tasks_in_flight: 1 } });
      }
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs`)).body.runs).toHaveLength(1);

      // Its answer comes: seq 2 failed too.
      await recordResults(runId, [2], { state: 'failed', errorCode: 'RESP001' });
      const retry = await call(tenant, 'POST', `/v1/jobs/${jobId}/retry-failed`, { include_not_started: true });
      expect(retry).toMatchObject({ status: 201, body: { run_sequence: 2, stats: { total: 4, successful: 0 } } });
      const rows = await gw.sql.query(
        `SELECT run_id, seq, state, lease_until FROM run_tasks WHERE run_id = ANY($1::uuid[]) ORDER BY run_id = $2, seq`,
        [[runId, retry.body.run_id], runId],
      );
      expect(rows.rows.map((r) => [r.run_id === runId ? 'old' : 'new', r.seq, r.state])).toEqual([
        ['new', 1, 'queued'],
        ['new', 2, 'queued'],
        ['new', 3, 'queued'],
        ['new', 4, 'queued'],
        ['old', 1, 'failed'],
        ['old', 2, 'failed'],
        // The expired claim was handed back, so a late answer to it is ignored rather than billed.
        ['old', 3, 'queued'],
        ['old', 4, 'queued'],
      ]);
      expect(rows.rows.find((r) => r.run_id === runId && r.seq === 3)?.lease_until).toBeNull();
    });

    it('answers 409 nothing_to_retry when the latest run has no failed task, hinting at include_not_started', async () => {
      const { tenant, jobId } = await jobOf(2);
      await call(tenant, 'POST', `/v1/jobs/${jobId}/stop`);
      const res = await call(tenant, 'POST', `/v1/jobs/${jobId}/retry-failed`, { include_not_started: false });
      expect(res).toMatchObject({ status: 409, body: { code: 'nothing_to_retry' } });
      expect(res.body.detail).toContain('include_not_started');
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/retry-failed`, { include_not_started: 'yes' })).body.code).toBe(
        'invalid_parameter',
      );
      expect((await call(tenant, 'POST', `/v1/jobs/${jobId}/retry-failed`, { include_not_started: true })).status).toBe(201);
    });
  });

  describe('costs', () => {
    it('estimates from the tiers the parameters imply, with a range for mode=auto', async () => {
      const tenant = await gw.createTenant();
      const { body: job } = await createJob(tenant, {
        service_params: { js_render: 'true' },
        tasks: [
          { url: 'https://shop.test/a' },
          { url: 'https://shop.test/b' },
          { url: 'https://shop.test/c', service_params: { premium_proxy: 'true' } },
        ],
      });
      const estimate = await call(tenant, 'GET', `/v1/jobs/${job.job_id}/cost-estimate`);
      expect(estimate.body).toMatchObject({
        tasks: 3,
        credits: { min: 35, max: 35 },
        tasks_by_tier: { js_render: 2, premium_js_render: 1 },
      });
      expect(estimate.body.cost.max).toBeCloseTo(35 * 0.0001, 10);

      const { body: auto } = await createJob(tenant, { service_params: { mode: 'auto' }, tasks: tasks(4) });
      expect((await call(tenant, 'GET', `/v1/jobs/${auto.job_id}/cost-estimate`)).body).toMatchObject({
        tasks: 4,
        credits: { min: 4, max: 100 },
        tasks_by_tier: { auto: 4 },
      });
    });

    it('shows the cost stored with each run, as its webhook events send it, whatever today’s price', async () => {
      const { tenant, jobId, runId } = await jobOf(2);
      // Billed at 0.0005 a credit; the price (FETCH_CREDIT_PRICE_USD) is 0.0001 now.
      await gw.sql.query(`UPDATE job_runs SET credits = 10, cost = 0.005 WHERE id = $1`, [runId]);
      const spend = { credits: 10, cost: 0.005 };
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}`)).body.latest_run.stats.spend).toEqual(spend);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${runId}`)).body.stats.spend).toEqual(spend);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/runs`)).body.runs[0].stats.spend).toEqual(spend);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}/results`)).body.run.stats.spend).toEqual(spend);
    });

    it('reads a run’s actual credits from the ledger, by tier, at the price each row was billed', async () => {
      const { tenant, jobId, runId } = await jobOf(4);
      // Billed at 0.0005 a credit (today's price is 0.0001), except one row from before the ledger
      // kept prices, which today's price prices.
      await gw.sql.query(
        `INSERT INTO credit_ledger (tenant_id, credits, product, tier, ref, cost_usd) VALUES
           ($1, 1, 'batch_task', 'basic', $2, 0.0005), ($1, 25, 'batch_task', 'premium_js_render', $3, 0.0125),
           ($1, 1, 'batch_task', 'basic', $4, NULL), ($1, 1, 'batch_task', 'basic', $5, 0.0005)`,
        [tenant.tenant_id, `batch:${runId}:1`, `batch:${runId}:2`, `batch:${runId}:3`, `batch:${randomUUID()}:1`],
      );
      const cost = await call(tenant, 'GET', `/v1/jobs/${jobId}/runs/${runId}/cost`);
      expect(cost.body).toMatchObject({
        run_id: runId,
        credits: 27,
        by_tier: [
          { tier: 'basic', tasks: 2, credits: 2, cost: 0.0006 },
          { tier: 'premium_js_render', tasks: 1, credits: 25, cost: 0.0125 },
        ],
      });
      expect(cost.body.cost).toBeCloseTo(0.0131, 10);
      expect((await call(await gw.createTenant(), 'GET', `/v1/jobs/${jobId}/runs/${runId}/cost`)).status).toBe(404);
    });
  });

  describe('GET, PUT and DELETE /v1/jobs/{id}/webhook', () => {
    it('sets, replaces and removes the webhook, https only, signed only with an active key', async () => {
      const { tenant, jobId } = await jobOf(1);
      const set = await call(tenant, 'PUT', `/v1/jobs/${jobId}/webhook`, { url: 'https://hooks.test/a' });
      expect(set).toMatchObject({ status: 200, body: { webhook: { url: 'https://hooks.test/a', signature: false } } });
      expect((await call(tenant, 'PUT', `/v1/jobs/${jobId}/webhook`, { url: 'http://hooks.test/a' })).body.code).toBe(
        'callback_url_must_be_https',
      );
      expect((await call(tenant, 'PUT', `/v1/jobs/${jobId}/webhook`, { url: 'https://hooks.test/b', signature: true })).body).toMatchObject(
        {
          status: 400,
          code: 'webhook_signing_requires_active_key',
        },
      );
      expect((await call(tenant, 'PUT', `/v1/jobs/${jobId}/webhook`, { signature: true })).body).toMatchObject({
        code: 'invalid_parameter',
        parameter: 'url',
      });
      await call(tenant, 'POST', '/v1/hmac/keys/rotate');
      const signed = await call(tenant, 'PUT', `/v1/jobs/${jobId}/webhook`, { url: 'https://hooks.test/b', signature: true });
      expect(signed.body.webhook).toEqual({ url: 'https://hooks.test/b', signature: true });
      expect((await call(await gw.createTenant(), 'DELETE', `/v1/jobs/${jobId}/webhook`)).status).toBe(404);
      expect((await call(tenant, 'DELETE', `/v1/jobs/${jobId}/webhook`)).status).toBe(204);
      expect((await call(tenant, 'GET', `/v1/jobs/${jobId}`)).body.webhook).toBeUndefined();
    });

    it('shows the webhook as set, 404 webhook_not_found without one, and only to its tenant', async () => {
      const { tenant, jobId } = await jobOf(1);
      const none = await call(tenant, 'GET', `/v1/jobs/${jobId}/webhook`);
      expect(none).toMatchObject({ status: 404, body: { code: 'webhook_not_found' } });
      await call(tenant, 'PUT', `/v1/jobs/${jobId}/webhook`, { url: 'https://hooks.test/c' });
      expect(await call(tenant, 'GET', `/v1/jobs/${jobId}/webhook`)).toMatchObject({
        status: 200,
        body: { url: 'https://hooks.test/c', signature: false },
      });
      expect((await call(await gw.createTenant(), 'GET', `/v1/jobs/${jobId}/webhook`)).body.code).toBe('job_not_found');
    });
  });

  describe('schedules', () => {
    const hourly = { rate: { every: 2, unit: 'hours' } };

    it('creates a scheduled job with its schedule row and no run until the first firing', async () => {
      const tenant = await gw.createTenant({ max_active_jobs: 1 });
      const before = Date.now();
      const res = await createJob(tenant, { type: 'scheduled', tasks: tasks(2), schedule: hourly });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ type: 'scheduled', schedule: { rate: { every: 2, unit: 'hour' }, schedule_state: 'active' } });
      expect(res.body.latest_run).toBeUndefined();
      const nextRun = Date.parse(res.body.schedule.next_run_at);
      expect(nextRun).toBeGreaterThanOrEqual(before + 2 * 3_600_000 - 1_000);
      const { rows } = await gw.sql.query(`SELECT tenant_id, state, next_due_at FROM job_schedules WHERE job_id = $1`, [res.body.job_id]);
      expect(rows).toEqual([{ tenant_id: tenant.tenant_id, state: 'active', next_due_at: new Date(res.body.schedule.next_run_at) }]);
      // Taking no active-job slot, it leaves room for a regular job.
      expect((await createJob(tenant, { tasks: tasks(1) })).status).toBe(201);
      expect((await call(tenant, 'GET', `/v1/jobs/${res.body.job_id}/results`)).body).toEqual({
        job_id: res.body.job_id,
        results: [],
        next_cursor: null,
      });
      // Deleting the job takes its schedule with it (the foreign key).
      await gw.sql.query(`DELETE FROM jobs WHERE id = $1`, [res.body.job_id]);
      expect((await gw.sql.query(`SELECT 1 FROM job_schedules WHERE job_id = $1`, [res.body.job_id])).rows).toEqual([]);
    });

    it('refuses a schedule that breaks the rules, and an `at` in the past', async () => {
      const tenant = await gw.createTenant();
      const tooOften = await createJob(tenant, { type: 'scheduled', tasks: tasks(1), schedule: { rate: { every: 30, unit: 'minutes' } } });
      expect(tooOften).toMatchObject({ status: 422, body: { code: 'invalid_parameter', parameter: 'schedule.rate.every' } });
      const past = await createJob(tenant, { type: 'scheduled', tasks: tasks(1), schedule: { at: '2020-01-01T09:00', timezone: 'UTC' } });
      expect(past).toMatchObject({ status: 422, body: { parameter: 'schedule.at' } });
      expect((await createJob(tenant, { type: 'scheduled', tasks: tasks(1) })).body.parameter).toBe('schedule');
    });

    it('replaces the schedule and pauses and resumes it; a regular job answers 409 job_not_scheduled', async () => {
      const tenant = await gw.createTenant();
      const { body: job } = await createJob(tenant, { type: 'scheduled', tasks: tasks(1), schedule: hourly });
      const calendar = { calendar: { times_of_day: ['09:00'], cadence: { weekly: { days: ['mon', 'fri'] } } }, timezone: 'Europe/Paris' };
      const replaced = await call(tenant, 'PUT', `/v1/jobs/${job.job_id}/schedule`, calendar);
      expect(replaced).toMatchObject({ status: 200, body: { schedule: { ...calendar, schedule_state: 'active' } } });
      expect(replaced.body.schedule.rate).toBeUndefined();
      const wrapped = await call(tenant, 'PUT', `/v1/jobs/${job.job_id}/schedule`, { schedule: hourly });
      expect(wrapped.body.schedule.rate).toEqual({ every: 2, unit: 'hour' });

      const paused = await call(tenant, 'POST', `/v1/jobs/${job.job_id}/schedule/state`, { schedule_state: 'paused' });
      expect(paused).toMatchObject({ status: 200, body: { schedule: { schedule_state: 'paused', next_run_at: null } } });
      const { rows } = await gw.sql.query(`SELECT state, next_due_at FROM job_schedules WHERE job_id = $1`, [job.job_id]);
      expect(rows[0]).toEqual({ state: 'paused', next_due_at: null });
      // Replacing a paused schedule keeps it paused.
      expect((await call(tenant, 'PUT', `/v1/jobs/${job.job_id}/schedule`, hourly)).body.schedule.schedule_state).toBe('paused');
      const resumed = await call(tenant, 'POST', `/v1/jobs/${job.job_id}/schedule/state`, { schedule_state: 'active' });
      expect(resumed.body.schedule).toMatchObject({ schedule_state: 'active', next_run_at: expect.any(String) });
      expect((await call(tenant, 'POST', `/v1/jobs/${job.job_id}/schedule/state`, { schedule_state: 'off' })).status).toBe(422);

      const { jobId: regular, tenant: owner } = await jobOf(1);
      expect((await call(owner, 'PUT', `/v1/jobs/${regular}/schedule`, hourly)).body).toMatchObject({
        status: 409,
        code: 'job_not_scheduled',
      });
      expect((await call(owner, 'POST', `/v1/jobs/${regular}/schedule/state`, { schedule_state: 'paused' })).body.code).toBe(
        'job_not_scheduled',
      );
      expect((await call(owner, 'PUT', `/v1/jobs/${job.job_id}/schedule`, hourly)).body.code).toBe('job_not_found');
    });
  });
});
