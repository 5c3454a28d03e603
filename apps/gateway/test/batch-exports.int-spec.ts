import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createJobBody } from '../src/batch/job-request.schema';
import type { JobsService } from '../src/batch/jobs.service';
import { waitFor } from '@trawl/testing';
import { jobsServiceFor } from './batch-files-support';
import { startTestGateway, TestGateway } from './gateway-harness';

jest.setTimeout(120_000);

describe('Bulk exports (POST /v1/jobs/{id}/exports, GET the export URL)', () => {
  let gateway: TestGateway;
  let small: TestGateway;
  /** Runs one file transfer at a time. */
  let narrow: TestGateway;
  let jobs: JobsService;
  let closeJobs: () => Promise<void>;
  let scratch: string;

  beforeAll(async () => {
    [gateway, small, narrow] = await Promise.all([
      startTestGateway(),
      startTestGateway({ EXPORT_MAX_BODY_BYTES: '1000' }),
      startTestGateway({ FILE_TRANSFERS_MAX: '1' }),
    ]);
    ({ jobs, close: closeJobs } = await jobsServiceFor(gateway));
    scratch = mkdtempSync(join(tmpdir(), 'trawl-export-'));
  }, 60_000);

  afterAll(async () => {
    await closeJobs?.();
    await Promise.all([gateway?.close(), small?.close(), narrow?.close()]);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  /** A job with `n` tasks whose first run has ended; results written as the scheduler would. */
  async function finishedJob(on: TestGateway, service: JobsService | undefined, tenantId: string, n: number) {
    const tasks = Array.from({ length: n }, (_, i) => ({ url: `https://shop.test/p/${i + 1}`, external_id: `e${i + 1}`, ...(i === 0 && { metadata: { k: 'v' } }) }));
    let jobId: string;
    let runId: string;
    if (service) {
      const { job } = await service.create(tenantId, createJobBody.parse({ tasks }), undefined);
      jobId = job.id;
      runId = job.latestRun!.id;
    } else {
      // Plays the jobs API on a gateway without a JobsService of the test's own.
      jobId = crypto.randomUUID();
      runId = crypto.randomUUID();
      await on.sql.query(`INSERT INTO jobs (id, tenant_id, type, status, service_params, task_count) VALUES ($1, $2, 'regular', 'closed', '{}', $3)`, [jobId, tenantId, n]);
      await on.sql.query(`INSERT INTO job_tasks (job_id, seq, url, external_id) SELECT $1, s, 'https://shop.test/p/' || s, 'e' || s FROM generate_series(1, $2::int) s`, [jobId, n]);
      await on.sql.query(`INSERT INTO job_runs (id, job_id, tenant_id, run_sequence, kind, status, total) VALUES ($1, $2, $3, 1, 'initial', 'queued', $4)`, [runId, jobId, tenantId, n]);
      await on.sql.query(`UPDATE jobs SET latest_run_id = $2 WHERE id = $1`, [jobId, runId]);
      await on.sql.query(`INSERT INTO run_tasks (run_id, seq, state) SELECT $1, s, 'queued' FROM generate_series(1, $2::int) s`, [runId, n]);
    }
    return { jobId, runId };
  }

  async function writeResults(on: TestGateway, runId: string, n: number, body: (seq: number) => Buffer) {
    for (let seq = 1; seq <= n; seq++) {
      const failed = seq % 5 === 0;
      await on.sql.query(
        `UPDATE run_tasks SET state = $3, status_code = $4, output_format = $5, content_type = $6, body = $7, tier = 'basic',
                credits = $8, error_code = $9, error_detail = $10, finished_at = now()
          WHERE run_id = $1 AND seq = $2`,
        failed
          ? [runId, seq, 'failed', 404, null, null, null, 0, 'RESP002', 'Not found']
          : [runId, seq, 'succeeded', 200, seq % 2 ? 'html' : 'markdown', seq % 2 ? 'text/html' : 'text/markdown', body(seq), 1, null, null],
      );
    }
    await on.sql.query(`UPDATE job_runs SET status = 'completed', finished_at = now() WHERE id = $1`, [runId]);
  }

  async function download(url: string, key: string): Promise<{ status: number; file: string; body?: any }> {
    const res = await fetch(url, { headers: { 'x-api-key': key } });
    if (res.status !== 200) return { status: res.status, file: '', body: await res.json() };
    expect(res.headers.get('content-type')).toBe('application/gzip');
    const file = join(scratch, `${crypto.randomUUID()}.tar.gz`);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return { status: 200, file };
  }

  it('archives results.jsonl and one file per body, equal to what the run holds', async () => {
    const { api_key: key, tenant_id } = await gateway.createTenant();
    const n = 1_203; // more than two keyset pages
    const { jobId, runId } = await finishedJob(gateway, jobs, tenant_id, n);
    const body = (seq: number) => (seq === 7 ? Buffer.alloc(3 * 1024 * 1024 + 3, 0x61) : Buffer.from(`<p>page ${seq} \u00e9</p>`));
    await writeResults(gateway, runId, n, body);

    const before = Date.now();
    const created = await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ job_id: jobId, run_id: runId, format: 'tar.gz' });
    expect(created.body.url).toBe(`${gateway.baseUrl}/v1/jobs/${jobId}/exports/${created.body.export_id}`);
    const lifetime = Date.parse(created.body.expires_at) - before;
    expect(lifetime).toBeGreaterThan(12 * 3600_000 - 5_000);
    expect(lifetime).toBeLessThanOrEqual(12 * 3600_000 + 1_000);

    const { status, file } = await download(created.body.url, key);
    expect(status).toBe(200);
    const listing = execFileSync('tar', ['-tzf', file], { encoding: 'utf8' }).trim().split('\n');
    const succeeded = Array.from({ length: n }, (_, i) => i + 1).filter((seq) => seq % 5 !== 0);
    expect(listing).toEqual(['results.jsonl', ...succeeded.map((seq) => `bodies/${seq}.${seq % 2 ? 'html' : 'md'}`)]);

    const out = join(scratch, 'x');
    execFileSync('mkdir', ['-p', out]);
    execFileSync('tar', ['-xzf', file, '-C', out]);
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line));
    expect(lines).toHaveLength(n);
    expect(lines[0]).toEqual({
      seq: 1,
      url: 'https://shop.test/p/1',
      external_id: 'e1',
      metadata: { k: 'v' },
      status: 'successful',
      status_code: 200,
      output_format: 'html',
      content_type: 'text/html',
      error: null,
      credits: 1,
      file: 'bodies/1.html',
    });
    expect(lines[4]).toMatchObject({ seq: 5, status: 'failed', status_code: 404, error: { code: 'RESP002', detail: 'Not found' }, credits: 0, file: null });
    for (const seq of [1, 2, 7, 1_203]) {
      expect(readFileSync(join(out, lines[seq - 1].file)).equals(body(seq))).toBe(true);
    }
  });

  it('exports a run named by run_id, and refuses a run in flight or of another job', async () => {
    const { api_key: key, tenant_id } = await gateway.createTenant();
    const { jobId, runId } = await finishedJob(gateway, jobs, tenant_id, 2);
    const inFlight = await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key, body: { run_id: runId } });
    expect(inFlight).toMatchObject({ status: 409, body: { code: 'run_not_finished', run_status: 'queued' } });
    await writeResults(gateway, runId, 2, (seq) => Buffer.from(`b${seq}`));
    expect((await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key, body: { run_id: runId } })).status).toBe(201);
    const other = await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key, body: { run_id: crypto.randomUUID() } });
    expect(other).toMatchObject({ status: 404, body: { code: 'run_not_found' } });
    expect((await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key, body: { format: 'zip' } })).body.code).toBe('unknown_parameter');
  });

  it('refuses a run whose result bodies exceed the export limit with 422 export_too_large', async () => {
    const { api_key: key, tenant_id } = await small.createTenant();
    const { jobId, runId } = await finishedJob(small, undefined, tenant_id, 3);
    await writeResults(small, runId, 3, () => Buffer.alloc(400, 0x62)); // three bodies of 400 bytes: 1,200 > 1,000
    const res = await small.request('POST', `/v1/jobs/${jobId}/exports`, { key });
    expect(res).toMatchObject({ status: 422, body: { code: 'export_too_large', body_bytes: 1_200, max_body_bytes: 1_000 } });
  });

  it('answers 410 past the 12 hours', async () => {
    const { api_key: key, tenant_id } = await gateway.createTenant();
    const { jobId, runId } = await finishedJob(gateway, jobs, tenant_id, 1);
    await writeResults(gateway, runId, 1, () => Buffer.from('x'));
    const created = await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key });
    await gateway.sql.query(`UPDATE job_exports SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.body.export_id]);
    const res = await download(created.body.url, key);
    expect(res).toMatchObject({ status: 410, body: { code: 'export_expired' } });
  });

  it("answers 404 for another tenant's job or export, and 401 without a key", async () => {
    const owner = await gateway.createTenant();
    const stranger = await gateway.createTenant();
    const { jobId, runId } = await finishedJob(gateway, jobs, owner.tenant_id, 1);
    await writeResults(gateway, runId, 1, () => Buffer.from('x'));
    const created = await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key: owner.api_key });
    expect(await download(created.body.url, stranger.api_key)).toMatchObject({ status: 404, body: { code: 'export_not_found' } });
    const theirs = await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key: stranger.api_key });
    expect(theirs).toMatchObject({ status: 404, body: { code: 'job_not_found' } });
    expect((await fetch(created.body.url)).status).toBe(401);
    expect((await download(created.body.url, owner.api_key)).status).toBe(200);
  });

  it('runs at most FILE_TRANSFERS_MAX downloads and uploads at once: 503 transfers_busy past it, the slot back when a download is dropped', async () => {
    const { api_key: key, tenant_id } = await narrow.createTenant();
    // ~16 MiB that gzip cannot shrink: more than the socket buffers hold, so an unread download stays open.
    const { jobId, runId } = await finishedJob(narrow, undefined, tenant_id, 8);
    await writeResults(narrow, runId, 8, () => randomBytes(2 * 1024 * 1024));
    const created = await narrow.request('POST', `/v1/jobs/${jobId}/exports`, { key });
    expect(created.status).toBe(201);

    const held = await new Promise<IncomingMessage>((resolve, reject) => {
      httpGet(created.body.url, { headers: { 'x-api-key': key } }, (res) => {
        res.pause();
        resolve(res);
      }).on('error', reject);
    });
    try {
      expect(held.statusCode).toBe(200);
      const refused = await fetch(created.body.url, { headers: { 'x-api-key': key } });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toMatchObject({ code: 'transfers_busy', status: 503 });

      const input = await narrow.request('POST', '/v1/job_inputs', { key, body: { type: 'csv', csv: { header: true, fields: { url: 'url' } } } });
      const upload = await fetch(input.body.upload.url, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: 'url\nhttps://shop.test/p/1\n' });
      expect(upload.status).toBe(503);
      expect(await upload.json()).toMatchObject({ code: 'transfers_busy' });
    } finally {
      held.destroy();
    }
    // The dropped download's snapshot ends when the server sees the socket go: then the slot is free.
    await waitFor(async () => (await download(created.body.url, key)).status === 200, { what: 'a download after the first was dropped' });
  });
});
