import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createJobBody } from '@trawl/contracts/http';
import { UrlSigner } from '../src/file-transfers/url-signer';
import { Secret } from '../src/secret';
import type { JobsService } from '../src/batch/jobs.service';
import { waitFor } from '@trawl/testing';
import { jobsServiceFor } from './batch-files-support';
import { ADMIN_TOKEN, startTestGateway, TestGateway } from './gateway-harness';

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
    const tasks = Array.from({ length: n }, (_, i) => ({
      url: `https://shop.test/p/${i + 1}`,
      external_id: `e${i + 1}`,
      ...(i === 0 && { metadata: { k: 'v' } }),
    }));
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
      await on.sql.query(
        `INSERT INTO jobs (id, tenant_id, type, status, service_params, task_count) VALUES ($1, $2, 'regular', 'closed', '{}', $3)`,
        [jobId, tenantId, n],
      );
      await on.sql.query(
        `INSERT INTO job_tasks (job_id, seq, url, external_id) SELECT $1, s, 'https://shop.test/p/' || s, 'e' || s FROM generate_series(1, $2::int) s`,
        [jobId, n],
      );
      await on.sql.query(
        `INSERT INTO job_runs (id, job_id, tenant_id, run_sequence, kind, status, total) VALUES ($1, $2, $3, 1, 'initial', 'queued', $4)`,
        [runId, jobId, tenantId, n],
      );
      await on.sql.query(`UPDATE jobs SET latest_run_id = $2 WHERE id = $1`, [jobId, runId]);
      await on.sql.query(`INSERT INTO run_tasks (run_id, seq, state) SELECT $1, s, 'queued' FROM generate_series(1, $2::int) s`, [
        runId,
        n,
      ]);
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
          : [
              runId,
              seq,
              'succeeded',
              200,
              seq % 2 ? 'html' : 'markdown',
              seq % 2 ? 'text/html' : 'text/markdown',
              body(seq),
              1,
              null,
              null,
            ],
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
    const lines = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
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
    expect(lines[4]).toMatchObject({
      seq: 5,
      status: 'failed',
      status_code: 404,
      error: { code: 'RESP002', detail: 'Not found' },
      credits: 0,
      file: null,
    });
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
    expect((await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key, body: { format: 'zip' } })).body.code).toBe(
      'unknown_parameter',
    );
  });

  it("makes and reads a run's export with the run in the path, as JSON with its status and signed download_url", async () => {
    const { api_key: key, tenant_id } = await gateway.createTenant();
    const { jobId, runId } = await finishedJob(gateway, jobs, tenant_id, 2);
    await writeResults(gateway, runId, 2, (seq) => Buffer.from(`b${seq}`));
    const created = await gateway.request('POST', `/v1/jobs/${jobId}/runs/${runId}/exports`, { key });
    expect(created).toMatchObject({
      status: 201,
      body: { run_id: runId, status: 'completed', created_at: expect.any(String), expires_at: expect.any(String) },
    });
    expect(created.body.download_url).toBe(created.body.download.url);
    const read = await gateway.request('GET', `/v1/jobs/${jobId}/runs/${runId}/exports/${created.body.export_id}`, { key });
    expect(read).toMatchObject({
      status: 200,
      body: { export_id: created.body.export_id, status: 'completed', download_url: expect.stringContaining('/downloads/job_exports/') },
    });
    // The download_url needs no key.
    const archive = await fetch(read.body.download_url);
    expect([archive.status, archive.headers.get('content-type')]).toEqual([200, 'application/gzip']);
    expect(gunzipSync(Buffer.from(await archive.arrayBuffer())).includes(Buffer.from('results.jsonl'))).toBe(true);
    // Another run's path does not reach it; a body is refused.
    const other = await gateway.request('GET', `/v1/jobs/${jobId}/runs/${crypto.randomUUID()}/exports/${created.body.export_id}`, { key });
    expect(other).toMatchObject({ status: 404, body: { code: 'export_not_found' } });
    expect((await gateway.request('POST', `/v1/jobs/${jobId}/runs/${runId}/exports`, { key, body: { run_id: runId } })).body.code).toBe(
      'unknown_parameter',
    );
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
      // HEAD reads nothing from the database, so it takes no slot.
      expect((await fetch(created.body.url, { method: 'HEAD', headers: { 'x-api-key': key } })).status).toBe(200);
      expect((await fetch(created.body.download.url, { method: 'HEAD' })).status).toBe(200);

      const input = await narrow.request('POST', '/v1/job_inputs', {
        key,
        body: { type: 'csv', csv: { header: true, fields: { url: 'url' } } },
      });
      const upload = await fetch(input.body.upload.url, {
        method: 'PUT',
        headers: { 'content-type': 'text/csv' },
        body: 'url\nhttps://shop.test/p/1\n',
      });
      expect(upload.status).toBe(503);
      expect(await upload.json()).toMatchObject({ code: 'transfers_busy' });
    } finally {
      held.destroy();
    }
    // The dropped download's snapshot ends when the server sees the socket go: then the slot is free.
    await waitFor(async () => (await download(created.body.url, key)).status === 200, { what: 'a download after the first was dropped' });
  });
  describe('signed download URL (download.url)', () => {
    /** The gateways' own key (derived from the admin token), to sign URLs the way a forger with it could. */
    const signer = UrlSigner.fromSecrets(undefined, new Secret(ADMIN_TOKEN));
    const hasTool = (tool: string) => spawnSync(tool, ['--version']).status === 0;

    async function exported(tenantId: string, key: string, n = 3) {
      const { jobId, runId } = await finishedJob(gateway, jobs, tenantId, n);
      await writeResults(gateway, runId, n, (seq) => Buffer.from(`<p>signed ${seq}</p>`));
      const created = await gateway.request('POST', `/v1/jobs/${jobId}/exports`, { key });
      expect(created.status).toBe(201);
      return created.body as {
        export_id: string;
        url: string;
        expires_at: string;
        download: { url: string; method: string; expires_at: string };
      };
    }

    /** The tar inside a download, for comparing two downloads of one export. */
    async function tarOf(url: string, init: RequestInit = {}): Promise<Buffer> {
      const res = await fetch(url, init);
      expect(res.status).toBe(200);
      return gunzipSync(Buffer.from(await res.arrayBuffer()));
    }

    it('serves the archive without an API key, as an attachment named after the export, the same as the keyed download', async () => {
      const { api_key: key, tenant_id } = await gateway.createTenant();
      const created = await exported(tenant_id, key);
      const { download } = created;
      expect(download.method).toBe('GET');
      expect(download.expires_at).toBe(created.expires_at);
      const url = new URL(download.url);
      expect(`${url.origin}${url.pathname}`).toBe(`${gateway.baseUrl}/downloads/job_exports/${tenant_id}/${created.export_id}.tar.gz`);
      expect(url.searchParams.get('expires')).toBe(String(Date.parse(created.expires_at) / 1000));

      const res = await fetch(download.url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/gzip');
      expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${created.export_id}.tar.gz"`);
      expect(res.headers.get('accept-ranges')).toBe('none');
      const signedTar = gunzipSync(Buffer.from(await res.arrayBuffer()));
      expect(signedTar.equals(await tarOf(created.url, { headers: { 'x-api-key': key } }))).toBe(true);
      expect(signedTar.subarray(0, 13).toString()).toBe('results.jsonl');
    });

    it('answers HEAD with the download headers and no body, by signed URL and by key', async () => {
      const { api_key: key, tenant_id } = await gateway.createTenant();
      const created = await exported(tenant_id, key);
      for (const [url, headers] of [
        [created.download.url, {}],
        [created.url, { 'x-api-key': key }],
      ] as const) {
        const res = await fetch(url, { method: 'HEAD', headers });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${created.export_id}.tar.gz"`);
        expect(res.headers.get('accept-ranges')).toBe('none');
        expect((await res.arrayBuffer()).byteLength).toBe(0);
      }
    });

    it('is saved under the export file name by curl -O -J and wget --content-disposition', async () => {
      const { api_key: key, tenant_id } = await gateway.createTenant();
      const created = await exported(tenant_id, key);
      const expected = await tarOf(created.url, { headers: { 'x-api-key': key } });
      const tools: [string, string[]][] = [
        ['curl', ['-sS', '--fail', '-O', '-J', created.download.url]],
        ['wget', ['-q', '--content-disposition', created.download.url]],
      ];
      const present = tools.filter(([tool]) => hasTool(tool));
      if (present.length === 0) console.warn('neither curl nor wget found: the command-line download is not checked');
      for (const [tool, args] of present) {
        const dir = mkdtempSync(join(scratch, `${tool}-`));
        // Not spawnSync: the gateway answering the tool runs on this process's event loop.
        const run = await promisify(execFile)(tool, args, { cwd: dir, encoding: 'utf8', timeout: 30_000 });
        expect({ tool, stderr: run.stderr }).toEqual({ tool, stderr: '' });
        expect(readdirSync(dir)).toEqual([`${created.export_id}.tar.gz`]);
        expect(gunzipSync(readFileSync(join(dir, `${created.export_id}.tar.gz`))).equals(expected)).toBe(true);
      }
    });

    it('refuses an expired URL with 410 export_expired, and a URL whose expiry was pushed back as not found', async () => {
      const { api_key: key, tenant_id } = await gateway.createTenant();
      const created = await exported(tenant_id, key);
      const url = new URL(created.download.url);
      const past = Math.floor(Date.now() / 1000) - 1;
      const expired = `${url.origin}${url.pathname}?expires=${past}&signature=${signer.sign('GET', url.pathname, past)}`;
      expect(await problemAt(expired)).toMatchObject({ status: 410, code: 'export_expired' });
      // Genuine URL, export expired in the database: the export's own expiry rules too.
      await gateway.sql.query(`UPDATE job_exports SET expires_at = now() - interval '1 second' WHERE id = $1`, [created.export_id]);
      expect(await problemAt(created.download.url)).toMatchObject({ status: 410, code: 'export_expired' });
      const pushedBack = new URL(created.download.url);
      pushedBack.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 86_400));
      expect(await problemAt(pushedBack.href)).toMatchObject({ status: 404, code: 'export_not_found' });
    });

    it('refuses a tampered signature, a URL signed for another method, and missing or extra query values', async () => {
      const { api_key: key, tenant_id } = await gateway.createTenant();
      const created = await exported(tenant_id, key);
      const url = new URL(created.download.url);
      const signature = url.searchParams.get('signature')!;
      const tampered = new URL(url);
      tampered.searchParams.set('signature', `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`);
      expect(await problemAt(tampered.href)).toMatchObject({
        status: 404,
        code: 'export_not_found',
        detail: expect.stringContaining('signature'),
      });
      const expires = Number(url.searchParams.get('expires'));
      const signedForPut = `${url.origin}${url.pathname}?expires=${expires}&signature=${signer.sign('PUT', url.pathname, expires)}`;
      expect(await problemAt(signedForPut)).toMatchObject({ status: 404, code: 'export_not_found' });
      expect(await problemAt(`${url.origin}${url.pathname}`)).toMatchObject({ status: 404, code: 'export_not_found' });
      expect(await problemAt(`${url.origin}${url.pathname.replace(/\.tar\.gz$/, '.zip')}${url.search}`)).toMatchObject({
        status: 404,
        code: 'export_not_found',
      });
      expect(await problemAt(`${created.download.url}&apikey=${key}`)).toMatchObject({
        status: 400,
        code: 'unknown_parameter',
        parameter: 'apikey',
      });
      expect((await fetch(created.download.url)).status).toBe(200);
    });

    it("refuses another tenant's export: swapped into a URL, or even in a URL signed for the other tenant", async () => {
      const owner = await gateway.createTenant();
      const stranger = await gateway.createTenant();
      const ownersExport = await exported(owner.tenant_id, owner.api_key);
      const strangersExport = await exported(stranger.tenant_id, stranger.api_key);
      const theirs = new URL(strangersExport.download.url);
      const swapped = new URL(theirs.href.replace(strangersExport.export_id, ownersExport.export_id));
      expect(await problemAt(swapped.href)).toMatchObject({ status: 404, code: 'export_not_found' });
      const retenanted = new URL(ownersExport.download.url.replace(owner.tenant_id, stranger.tenant_id));
      expect(await problemAt(retenanted.href)).toMatchObject({ status: 404, code: 'export_not_found' });
      // A signature that holds proves the path was issued; the tenant it names must still own the export.
      const path = `/downloads/job_exports/${stranger.tenant_id}/${ownersExport.export_id}.tar.gz`;
      const expires = Math.floor(Date.now() / 1000) + 600;
      expect(await problemAt(`${gateway.baseUrl}${path}?expires=${expires}&signature=${signer.sign('GET', path, expires)}`)).toMatchObject({
        status: 404,
        code: 'export_not_found',
      });
    });

    async function problemAt(url: string): Promise<{ status: number; code: string; detail: string } & Record<string, unknown>> {
      const res = await fetch(url);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      return { ...((await res.json()) as Record<string, unknown> & { code: string; detail: string }), status: res.status };
    }
  });
});
