import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { csvLines, streamRequest } from './batch-files-support';
import { UrlSigner } from '../src/file-transfers/url-signer';
import { Secret } from '../src/secret';
import { ADMIN_TOKEN, startTestGateway, TestGateway } from './gateway-harness';
import { loadGatewayConfig } from '../src/config';

jest.setTimeout(120_000);

describe('CSV inputs (POST /v1/job_inputs, PUT upload URL, jobs from file_input_id)', () => {
  let gateway: TestGateway;

  beforeAll(async () => {
    gateway = await startTestGateway();
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
  });

  async function slot(key: string, csv: Record<string, unknown>) {
    const res = await gateway.request('POST', '/v1/job_inputs', { key, body: { type: 'csv', csv } });
    expect(res.status).toBe(201);
    return res.body as {
      file_input_id: string;
      upload: { url: string; method: string; headers: Record<string, string> };
      expires_at: string;
    };
  }

  async function upload(url: string, text: string, headers: Record<string, string> = { 'Content-Type': 'text/csv' }) {
    const res = await fetch(url, { method: 'PUT', headers, body: text });
    return { status: res.status, body: (await res.json()) as any };
  }

  describe('POST /v1/job_inputs', () => {
    it('answers a slot whose signed upload URL lives 24 hours and names the exact headers', async () => {
      const { api_key: key } = await gateway.createTenant();
      const before = Date.now();
      const res = await gateway.request('POST', '/v1/job_inputs', {
        key,
        body: { type: 'csv', csv: { header: true, fields: { url: 'link', external_id: 'sku' } } },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        type: 'csv',
        state: 'awaiting_upload',
        csv: { header: true, delimiter: ',', quote: '"', fields: { url: 'link', external_id: 'sku' } },
        upload: { method: 'PUT', headers: { 'Content-Type': 'text/csv' } },
      });
      const url = new URL(res.body.upload.url);
      expect(url.origin).toBe(gateway.baseUrl);
      expect(url.pathname).toBe(`/uploads/job_inputs/${res.body.file_input_id}`);
      expect(Number(url.searchParams.get('expires')) * 1000).toBe(Date.parse(res.body.expires_at));
      const lifetime = Date.parse(res.body.expires_at) - before;
      expect(lifetime).toBeGreaterThan(24 * 3600_000 - 5_000);
      expect(lifetime).toBeLessThanOrEqual(24 * 3600_000 + 1_000);
      expect(url.searchParams.get('signature')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    });

    it.each([
      [{ type: 'xlsx', csv: { header: true, fields: { url: 'u' } } }, 422, 'type'],
      [{ type: 'csv' }, 400, 'csv'],
      [{ type: 'csv', csv: { header: true, fields: {} } }, 400, 'csv.fields.url'],
      [{ type: 'csv', csv: { header: true, fields: { url: 0 } } }, 400, 'csv.fields.url'],
      [{ type: 'csv', csv: { header: false, fields: { url: 'url' } } }, 400, 'csv.fields.url'],
      [{ type: 'csv', csv: { header: false, fields: { url: -1 } } }, 422, 'csv.fields.url'],
      [{ type: 'csv', csv: { header: false, fields: { url: true } } }, 400, 'csv.fields.url'],
      [{ type: 'csv', csv: { header: true, fields: { url: 'a', external_id: 'a' } } }, 422, 'csv.fields.external_id'],
      [{ type: 'csv', csv: { header: true, fields: { url: 'a', title: 'b' } } }, 400, 'csv.fields.title'],
    ])('refuses %j with %i naming %s', async (body, status, parameter) => {
      const { api_key: key } = await gateway.createTenant();
      const res = await gateway.request('POST', '/v1/job_inputs', { key, body });
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.parameter).toBe(parameter);
    });

    it('needs an API key', async () => {
      const res = await gateway.request('POST', '/v1/job_inputs', { body: { type: 'csv', csv: { header: false, fields: { url: 0 } } } });
      expect(res.status).toBe(401);
    });
  });

  describe('PUT upload URL', () => {
    it('stores the rows of a file with a header, by column names, normalised', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: true, fields: { url: 'link', external_id: 'sku' } });
      const csv =
        'sku,title,link\r\nA1,"Shoe, red",https://Shop.test/a\r\n\r\nA2,Hat,https://shop.test/b?x=1\r\n,None,https://shop.test/c\r\n';
      const res = await upload(input.upload.url, csv, input.upload.headers);
      expect(res).toEqual({
        status: 200,
        body: { file_input_id: input.file_input_id, state: 'uploaded', rows: 3, expires_at: input.expires_at },
      });
      const { rows } = await gateway.sql.query(`SELECT seq, url, external_id FROM job_input_rows WHERE input_id = $1 ORDER BY seq`, [
        input.file_input_id,
      ]);
      expect(rows).toEqual([
        { seq: 1, url: 'https://shop.test/a', external_id: 'A1' },
        { seq: 2, url: 'https://shop.test/b?x=1', external_id: 'A2' },
        { seq: 3, url: 'https://shop.test/c', external_id: null },
      ]);
    });

    it('reads a file in the delimiter and quote character the slot names (the public Node SDK sends both)', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: true, delimiter: ';', quote: "'", fields: { url: 'link', external_id: 'sku' } });
      const res = await upload(input.upload.url, "sku;link\n'A;1';https://shop.test/a\nB2;https://shop.test/b\n", input.upload.headers);
      expect(res.body).toMatchObject({ state: 'uploaded', rows: 2 });
      const { rows } = await gateway.sql.query(`SELECT url, external_id FROM job_input_rows WHERE input_id = $1 ORDER BY seq`, [
        input.file_input_id,
      ]);
      expect(rows).toEqual([
        { url: 'https://shop.test/a', external_id: 'A;1' },
        { url: 'https://shop.test/b', external_id: 'B2' },
      ]);
      for (const [csv, parameter] of [
        [{ header: true, delimiter: ';;', fields: { url: 'u' } }, 'csv.delimiter'],
        [{ header: true, delimiter: '\n', fields: { url: 'u' } }, 'csv.delimiter'],
        [{ header: true, delimiter: '"', fields: { url: 'u' } }, 'csv.quote'],
      ] as const) {
        const refused = await gateway.request('POST', '/v1/job_inputs', { key, body: { type: 'csv', csv } });
        expect({ status: refused.status, parameter: refused.body.parameter }).toEqual({ status: 422, parameter });
      }
    });

    it('reads columns by index in a file without a header (BOM and ragged rows accepted)', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 1, external_id: 0 } });
      const res = await upload(input.upload.url, '\uFEFFe1,https://shop.test/1,extra\ne2,https://shop.test/2\n');
      expect(res.body.rows).toBe(2);
      const { rows } = await gateway.sql.query(`SELECT url, external_id FROM job_input_rows WHERE input_id = $1 ORDER BY seq`, [
        input.file_input_id,
      ]);
      expect(rows).toEqual([
        { url: 'https://shop.test/1', external_id: 'e1' },
        { url: 'https://shop.test/2', external_id: 'e2' },
      ]);
    });

    it('refuses a file with bad rows, listing them by line, stores nothing, and takes a corrected file at the same URL', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: true, fields: { url: 'url', external_id: 'id' } });
      const csv = [
        'url,id',
        'https://shop.test/ok,1',
        ',2',
        'ftp://shop.test/x,3',
        `https://shop.test/y,${'z'.repeat(256)}`,
        'https://shop.test/ok2,5',
      ].join('\n');
      const res = await upload(input.upload.url, csv);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'csv_invalid_rows', invalid_row_count: 3 });
      expect(res.body.invalid_rows).toEqual([
        { row: 3, field: 'url', reason: 'is required' },
        { row: 4, field: 'url', reason: expect.stringMatching(/http or https/) },
        { row: 5, field: 'external_id', reason: 'is over 255 characters' },
      ]);
      const staged = await gateway.sql.query(`SELECT count(*)::int AS n FROM job_input_rows WHERE input_id = $1`, [input.file_input_id]);
      expect(staged.rows[0].n).toBe(0);
      const fixed = await upload(input.upload.url, 'url,id\nhttps://shop.test/ok,1\n');
      expect(fixed).toMatchObject({ status: 200, body: { rows: 1 } });
    });

    it('lists the first 100 bad rows of many and counts them all', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 0 } });
      const res = await streamRequest(
        'PUT',
        input.upload.url,
        csvLines(250, (i) => `not-a-url-${i}`),
        { 'content-type': 'text/csv' },
      );
      expect(res.status).toBe(400);
      expect(res.body.invalid_rows).toHaveLength(100);
      expect(res.body.invalid_rows[99].row).toBe(100);
      expect(res.body.invalid_row_count).toBe(250);
    });

    it('refuses a header without the named column', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: true, fields: { url: 'url', external_id: 'sku' } });
      const res = await upload(input.upload.url, 'url,id\nhttps://shop.test/a,1\n');
      expect(res).toMatchObject({ status: 400, body: { code: 'csv_column_missing', field: 'external_id', column: 'sku' } });
    });

    it('refuses malformed CSV and an empty file', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 0 } });
      expect(await upload(input.upload.url, '"https://shop.test/a\n')).toMatchObject({ status: 400, body: { code: 'csv_malformed' } });
      expect(await upload(input.upload.url, '')).toMatchObject({ status: 400, body: { code: 'csv_malformed' } });
    });

    it('refuses a declared Content-Length over 50 MB before reading the body', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 0 } });
      // The body promised is never sent: the answer comes before it is read (and the socket is not reused).
      const res = await streamRequest(
        'PUT',
        input.upload.url,
        csvLines(1, () => 'https://shop.test/'),
        {
          'content-type': 'text/csv',
          'content-length': '50000001',
          connection: 'close',
        },
      );
      expect(res).toMatchObject({ status: 413, body: { code: 'csv_too_large', max_bytes: 50_000_000 } });
    });

    it('accepts exactly 100,000 data rows', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 0 } });
      const res = await streamRequest(
        'PUT',
        input.upload.url,
        csvLines(100_000, (i) => `https://shop.test/p/${i}`),
        { 'content-type': 'text/csv' },
      );
      expect(res).toMatchObject({ status: 200, body: { rows: 100_000 } });
    });

    it('answers 403 to a bad or moved signature and to an expired URL, without an API key ever', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 0 } });
      const other = await slot(key, { header: false, fields: { url: 0 } });
      const url = new URL(input.upload.url);
      const tampered = new URL(url);
      const signature = url.searchParams.get('signature')!;
      // Another last character (one in 64 signatures already ends in A).
      tampered.searchParams.set('signature', `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`);
      expect(await upload(tampered.href, 'https://shop.test/\n')).toMatchObject({
        status: 403,
        body: { code: 'upload_signature_invalid' },
      });
      const moved = new URL(url);
      moved.pathname = `/uploads/job_inputs/${other.file_input_id}`;
      expect(await upload(moved.href, 'https://shop.test/\n')).toMatchObject({ status: 403, body: { code: 'upload_signature_invalid' } });
      const unsigned = new URL(url);
      unsigned.search = '';
      expect(await upload(unsigned.href, 'https://shop.test/\n')).toMatchObject({
        status: 403,
        body: { code: 'upload_signature_invalid' },
      });
      const later = new URL(url);
      later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      expect(await upload(later.href, 'https://shop.test/\n')).toMatchObject({ status: 403, body: { code: 'upload_signature_invalid' } });
    });

    it('answers 403 upload_url_expired past the slot lifetime', async () => {
      const expired = await startTestGateway({});
      try {
        const { api_key: key } = await expired.createTenant();
        const res = await expired.request('POST', '/v1/job_inputs', {
          key,
          body: { type: 'csv', csv: { header: false, fields: { url: 0 } } },
        });
        // The URL carries its own expiry: sign one that has passed with the gateway's key.
        const signer = UrlSigner.fromSecrets(undefined, new Secret(ADMIN_TOKEN));
        const path = `/uploads/job_inputs/${res.body.file_input_id}`;
        const past = Math.floor(Date.now() / 1000) - 1;
        const url = `${expired.baseUrl}${path}?expires=${past}&signature=${signer.sign('PUT', path, past)}`;
        expect(await upload(url, 'https://shop.test/\n')).toMatchObject({ status: 403, body: { code: 'upload_url_expired' } });
      } finally {
        await expired.close();
      }
    });

    it('answers 409 to a second upload', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 0 } });
      expect((await upload(input.upload.url, 'https://shop.test/a\n')).status).toBe(200);
      expect(await upload(input.upload.url, 'https://shop.test/b\n')).toMatchObject({
        status: 409,
        body: { code: 'file_input_already_uploaded' },
      });
    });

    it('refuses a body that is not text/csv', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 0 } });
      const json = await upload(input.upload.url, '{"url":"https://shop.test/"}', { 'Content-Type': 'application/json' });
      expect(json).toMatchObject({ status: 415, body: { code: 'upload_not_csv' } });
      const other = await upload(input.upload.url, 'https://shop.test/', { 'Content-Type': 'application/octet-stream' });
      expect(other.status).toBe(415);
    });
  });

  /**
   * The byte and row limits counted as the body streams in, proven on a gateway with small limits:
   * the same code as at 50 MB / 100,000 rows (the defaults, checked below and by the declared
   * Content-Length and 100,000-row tests above) without sending 50 MB.
   */
  describe('PUT upload URL, limits counted while streaming', () => {
    const MAX_BYTES = 100_000;
    const MAX_ROWS = 100;
    const DRAIN_BYTES = 1024 * 1024;
    let small: TestGateway;

    beforeAll(async () => {
      small = await startTestGateway({
        CSV_UPLOAD_MAX_BYTES: String(MAX_BYTES),
        CSV_UPLOAD_MAX_ROWS: String(MAX_ROWS),
        CSV_UPLOAD_DRAIN_MAX_BYTES: String(DRAIN_BYTES),
      });
    }, 60_000);

    afterAll(async () => {
      await small?.close();
    });

    async function smallSlot(csv: Record<string, unknown>) {
      const { api_key: key } = await small.createTenant();
      const res = await small.request('POST', '/v1/job_inputs', { key, body: { type: 'csv', csv } });
      expect(res.status).toBe(201);
      return res.body as { file_input_id: string; upload: { url: string } };
    }

    it('defaults to the spec limits: 50 MB and 100,000 rows', () => {
      const defaults = loadGatewayConfig({ ADMIN_TOKEN });
      expect(defaults).toMatchObject({ CSV_UPLOAD_MAX_BYTES: 50_000_000, CSV_UPLOAD_MAX_ROWS: 100_000 });
    });

    it('refuses a streamed body over the byte limit with 413, stopping at the limit', async () => {
      const input = await smallSlot({ header: false, fields: { url: 0 } });
      // ~10 times the limit, sent chunked (no Content-Length): the limit is counted as it arrives.
      const line = `https://shop.test/${'p'.repeat(3_980)}`;
      const lines = Math.ceil((10 * MAX_BYTES) / (line.length + 1));
      // The byte limit comes before the row limit: this refuses on bytes.
      expect(Math.ceil(MAX_BYTES / (line.length + 1))).toBeLessThan(MAX_ROWS);
      const res = await streamRequest(
        'PUT',
        input.upload.url,
        csvLines(lines, () => line),
        { 'content-type': 'text/csv' },
      );
      expect(res.status).toBe(413);
      expect(res.body).toMatchObject({ code: 'csv_too_large', max_bytes: MAX_BYTES });
      const state = await small.sql.query(`SELECT state FROM job_inputs WHERE id = $1`, [input.file_input_id]);
      expect(state.rows[0].state).toBe('awaiting_upload');
    });

    it('refuses one data row over the row limit with 413, and accepts exactly the limit', async () => {
      const over = await smallSlot({ header: true, fields: { url: 'url' } });
      const tooMany = csvLines(MAX_ROWS + 2, (i) => (i === 0 ? 'url' : `https://shop.test/p/${i}`));
      expect(await streamRequest('PUT', over.upload.url, tooMany, { 'content-type': 'text/csv' })).toMatchObject({
        status: 413,
        body: { code: 'csv_too_many_rows', max_rows: MAX_ROWS },
      });
      const exact = await smallSlot({ header: true, fields: { url: 'url' } });
      const enough = csvLines(MAX_ROWS + 1, (i) => (i === 0 ? 'url' : `https://shop.test/p/${i}`));
      expect(await streamRequest('PUT', exact.upload.url, enough, { 'content-type': 'text/csv' })).toMatchObject({
        status: 200,
        body: { rows: MAX_ROWS },
      });
    });

    it('closes the connection of a refused upload that keeps sending, after reading a bounded amount more', async () => {
      const input = await smallSlot({ header: false, fields: { url: 0 } });
      // An endless body: without a bound the gateway would read it for ever and this never ends.
      const outcome = await endlessUpload(input.upload.url);
      expect(outcome.closed).toBe(true);
      // Sent at most: the limit, the drain bound, and what socket buffers on loopback hold.
      expect(outcome.sentBytes).toBeLessThan(MAX_BYTES + DRAIN_BYTES + 32 * 1024 * 1024);
      if (outcome.status !== undefined) expect(outcome.status).toBe(413);
      const state = await small.sql.query(`SELECT state FROM job_inputs WHERE id = $1`, [input.file_input_id]);
      expect(state.rows[0].state).toBe('awaiting_upload');
    });
  });

  describe('jobs from file_input_id', () => {
    it('creates one task per row with the job parameters, asynchronously (202), and uses the input up', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: true, fields: { url: 'url', external_id: 'id' } });
      await upload(input.upload.url, 'url,id\nhttps://shop.test/1,a\nhttps://shop.test/2,\nhttps://shop.test/3,c\n');
      const body = { type: 'regular', status: 'closed', file_input_id: input.file_input_id, service_params: { js_render: 'true' } };
      const created = await gateway.request('POST', '/v1/jobs', { key, body });
      expect(created.status).toBe(202);
      expect(created.body).toMatchObject({ service_params: { js_render: 'true' }, latest_run: { status: 'queued', stats: { total: 3 } } });
      const tasks = await gateway.sql.query(
        `SELECT t.seq, t.url, t.external_id, t.method, t.service_params, rt.state
           FROM job_tasks t JOIN run_tasks rt ON rt.run_id = $2 AND rt.seq = t.seq WHERE t.job_id = $1 ORDER BY t.seq`,
        [created.body.job_id, created.body.latest_run.run_id],
      );
      expect(tasks.rows).toEqual([
        { seq: 1, url: 'https://shop.test/1', external_id: 'a', method: 'GET', service_params: null, state: 'queued' },
        { seq: 2, url: 'https://shop.test/2', external_id: null, method: 'GET', service_params: null, state: 'queued' },
        { seq: 3, url: 'https://shop.test/3', external_id: 'c', method: 'GET', service_params: null, state: 'queued' },
      ]);
      const results = await gateway.request('GET', `/v1/jobs/${created.body.job_id}/results`, { key });
      expect(results.body.results.map((r: { external_id: string | null }) => r.external_id)).toEqual(['a', null, 'c']);
      const used = await gateway.sql.query(`SELECT state, used_by_job_id FROM job_inputs WHERE id = $1`, [input.file_input_id]);
      expect(used.rows[0]).toEqual({ state: 'used', used_by_job_id: created.body.job_id });
      const staged = await gateway.sql.query(`SELECT count(*)::int AS n FROM job_input_rows WHERE input_id = $1`, [input.file_input_id]);
      expect(staged.rows[0].n).toBe(0);
      const again = await gateway.request('POST', '/v1/jobs', { key, body });
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('file_input_used');
    });

    it('names its input as file_input_id, and answers a resend with the used key idempotency_key_conflict', async () => {
      const { api_key: key } = await gateway.createTenant();
      const input = await slot(key, { header: false, fields: { url: 0 } });
      await upload(input.upload.url, 'https://shop.test/1\n');
      const body = { type: 'regular', status: 'closed', file_input_id: input.file_input_id };
      const headers = { 'idempotency-key': 'csv-run-1' };
      const created = await gateway.request('POST', '/v1/jobs', { key, body, headers });
      expect(created).toMatchObject({ status: 202, body: { file_input_id: input.file_input_id } });
      expect((await gateway.request('GET', `/v1/jobs/${created.body.job_id}`, { key })).body.file_input_id).toBe(input.file_input_id);
      // The key is looked at before the input is claimed (which would answer file_input_used).
      const again = await gateway.request('POST', '/v1/jobs', { key, body, headers });
      expect(again).toMatchObject({ status: 409, body: { code: 'idempotency_key_conflict', job_id: created.body.job_id } });
    });

    it("treats another tenant's input as not found, and refuses one not uploaded or expired", async () => {
      const owner = await gateway.createTenant();
      const stranger = await gateway.createTenant();
      const input = await slot(owner.api_key, { header: false, fields: { url: 0 } });
      const body = { type: 'regular', status: 'closed', file_input_id: input.file_input_id };
      const create = (key: string) => gateway.request('POST', '/v1/jobs', { key, body });
      expect(await create(owner.api_key)).toMatchObject({ status: 409, body: { code: 'file_input_not_uploaded' } });
      await upload(input.upload.url, 'https://shop.test/\n');
      expect(await create(stranger.api_key)).toMatchObject({ status: 404, body: { code: 'file_input_not_found' } });
      await gateway.sql.query(`UPDATE job_inputs SET expires_at = now() - interval '1 second' WHERE id = $1`, [input.file_input_id]);
      expect(await create(owner.api_key)).toMatchObject({ status: 410, body: { code: 'file_input_expired' } });
      const jobsMade = await gateway.sql.query(`SELECT count(*)::int AS n FROM jobs WHERE tenant_id = ANY($1::uuid[])`, [
        [owner.tenant_id, stranger.tenant_id],
      ]);
      expect(jobsMade.rows[0].n).toBe(0);
    });
  });
});

/**
 * PUTs an endless CSV body until the server closes the connection; answers whether it did, how
 * many bytes were produced for sending, and the answer's status if one was read first.
 */
function endlessUpload(url: string): Promise<{ closed: boolean; sentBytes: number; status?: number }> {
  return new Promise((resolve) => {
    let sentBytes = 0;
    let status: number | undefined;
    const chunk = Buffer.from(`${'https://shop.test/endless\n'.repeat(2_000)}`);
    const body = new Readable({
      read() {
        sentBytes += chunk.length;
        this.push(chunk);
      },
    });
    const req = httpRequest(url, { method: 'PUT', headers: { 'content-type': 'text/csv' } }, (res) => {
      status = res.statusCode;
      res.resume();
    });
    req.on('error', () => undefined);
    req.on('close', () => {
      body.destroy();
      resolve({ closed: true, sentBytes, status });
    });
    body.pipe(req);
  });
}
