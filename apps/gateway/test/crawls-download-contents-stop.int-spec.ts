import { addResults, endCrawl, startTestGateway, TenantCredentials, TestGateway } from './gateway-harness';

describe('Crawl downloads, contents and stop', () => {
  let gw: TestGateway;
  let tenant: TenantCredentials;

  beforeAll(async () => {
    gw = await startTestGateway();
    tenant = await gw.createTenant({ max_active_jobs: 50 });
  });

  afterAll(async () => {
    await gw?.close();
  });

  const startCrawl = async (body: Record<string, unknown> = {}): Promise<string> => {
    const response = await gw.request('POST', '/v1/crawls', { key: tenant.api_key, body: { url: 'http://shop.test/', ...body } });
    if (response.status !== 202) throw new Error(`crawl not started: ${response.text}`);
    return response.body.crawl_id;
  };
  const lines = (text: string) =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));

  describe('GET /v1/crawls/{crawl_id}/download', () => {
    it('streams every result as NDJSON across keyset pages, with the file name and status headers', async () => {
      const crawlId = await startCrawl();
      const urls = Array.from({ length: 2_345 }, (_, i) => `http://shop.test/p/${i}`);
      await gw.sql.query(
        `INSERT INTO crawl_frontier (crawl_id, url_key, url, depth, item_seq, state, wants_links, wants_content)
         SELECT $1, decode(md5(u), 'hex'), u, 1, n, 'queued', true, false
           FROM unnest($2::text[]) WITH ORDINALITY AS t(u, n)`,
        [crawlId, urls],
      );
      const response = await gw.request('GET', `/v1/crawls/${crawlId}/download`, { key: tenant.api_key });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/x-ndjson');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${crawlId}.jsonl"`);
      expect(response.headers.get('x-crawl-status')).toBe('running');
      expect(response.text.endsWith('\n')).toBe(true);
      expect(lines(response.text)).toEqual(urls.map((url) => ({ url })));
    });

    it('adds content_status and the HTML of fetched pages with output_format', async () => {
      const crawlId = await startCrawl({ output_format: 'html' });
      await addResults(gw.sql, crawlId, ['http://shop.test/f'], { contentStatus: 'fetched', html: '<h1>F</h1>' });
      await addResults(gw.sql, crawlId, ['http://shop.test/p'], { contentStatus: 'pending' });
      await addResults(gw.sql, crawlId, ['http://shop.test/x'], { contentStatus: 'failed' });
      await endCrawl(gw.sql, crawlId, 'completed');
      const response = await gw.request('GET', `/v1/crawls/${crawlId}/download`, { key: tenant.api_key });
      expect(response.headers.get('x-crawl-status')).toBe('completed');
      expect(lines(response.text)).toEqual([
        { url: 'http://shop.test/f', content_status: 'fetched', content: '<h1>F</h1>' },
        { url: 'http://shop.test/p', content_status: 'pending' },
        { url: 'http://shop.test/x', content_status: 'failed' },
      ]);
    });

    it('gives an empty file for a crawl without results, and accepts the key as apikey', async () => {
      const crawlId = await startCrawl();
      const response = await gw.request('GET', `/v1/crawls/${crawlId}/download?apikey=${tenant.api_key}`);
      expect(response.status).toBe(200);
      expect(response.text).toBe('');
    });
  });

  describe('GET /v1/crawls/{crawl_id}/contents/{content_id}', () => {
    it('serves the kept HTML, as a file with download=true', async () => {
      const crawlId = await startCrawl({ output_format: 'html' });
      const [page] = await addResults(gw.sql, crawlId, ['http://shop.test/f'], { contentStatus: 'fetched', html: '<p>héllo</p>' });
      const path = `/v1/crawls/${crawlId}/contents/${page!.id}`;
      const inline = await gw.request('GET', path, { key: tenant.api_key });
      expect(inline.status).toBe(200);
      expect(inline.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(inline.headers.get('content-disposition')).toBeNull();
      expect(inline.text).toBe('<p>héllo</p>');
      const file = await gw.request('GET', `${path}?download=true`, { key: tenant.api_key });
      expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${page!.id}.html"`);
      expect(file.text).toBe('<p>héllo</p>');
    });

    it('answers 404 content_not_found for pending, failed, unknown and malformed pages, and without output_format', async () => {
      const crawlId = await startCrawl({ output_format: 'html' });
      const [pending] = await addResults(gw.sql, crawlId, ['http://shop.test/p'], { contentStatus: 'pending' });
      const [failed] = await addResults(gw.sql, crawlId, ['http://shop.test/x'], { contentStatus: 'failed' });
      const plainCrawl = await startCrawl();
      const [plain] = await addResults(gw.sql, plainCrawl, ['http://shop.test/q'], { contentStatus: 'fetched' });
      for (const path of [
        `/v1/crawls/${crawlId}/contents/${pending!.id}`,
        `/v1/crawls/${crawlId}/contents/${failed!.id}`,
        `/v1/crawls/${crawlId}/contents/999999999`,
        `/v1/crawls/${crawlId}/contents/abc`,
        `/v1/crawls/${crawlId}/contents/${plain!.id}`,
        `/v1/crawls/${plainCrawl}/contents/${plain!.id}`,
      ]) {
        const response = await gw.request('GET', path, { key: tenant.api_key });
        expect({ path, status: response.status, code: response.body.code }).toEqual({ path, status: 404, code: 'content_not_found' });
      }
    });

    it('refuses a download value other than true or false', async () => {
      const crawlId = await startCrawl({ output_format: 'html' });
      const response = await gw.request('GET', `/v1/crawls/${crawlId}/contents/1?download=yes`, { key: tenant.api_key });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_request', parameter: 'download' });
    });
  });

  describe('POST /v1/crawls/{crawl_id}/stop', () => {
    it('stops a running crawl with stop_reason user', async () => {
      const crawlId = await startCrawl();
      const response = await gw.request('POST', `/v1/crawls/${crawlId}/stop`, { key: tenant.api_key });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ crawl_id: crawlId, status: 'stopped', stop_reason: 'user', finished_at: expect.any(String) });
      const row = (await gw.sql.query(`SELECT stopped_at, finished_at FROM crawls WHERE id = $1`, [crawlId])).rows[0];
      expect(row.stopped_at).toEqual(row.finished_at);
      const crawl = await gw.request('GET', `/v1/crawls/${crawlId}`, { key: tenant.api_key });
      expect(crawl.body).toMatchObject({ status: 'stopped', stop_reason: 'user', finished_at: response.body.finished_at });
    });

    it('turns the content of kept pages not in flight failed, since no page is fetched after a stop', async () => {
      const crawlId = await startCrawl({ output_format: 'html' });
      await addResults(gw.sql, crawlId, ['http://shop.test/f'], { contentStatus: 'fetched' });
      const [queued, inFlight] = await addResults(gw.sql, crawlId, ['http://shop.test/q', 'http://shop.test/d'], {
        contentStatus: 'pending',
      });
      await gw.sql.query(`UPDATE crawl_frontier SET state = 'queued' WHERE id = $1`, [queued!.id]);
      await gw.sql.query(`UPDATE crawl_frontier SET state = 'dispatched', lease_until = now() + interval '1 minute' WHERE id = $1`, [
        inFlight!.id,
      ]);

      await gw.request('POST', `/v1/crawls/${crawlId}/stop`, { key: tenant.api_key });

      const crawl = await gw.request('GET', `/v1/crawls/${crawlId}`, { key: tenant.api_key });
      expect(crawl.body.results).toEqual([
        expect.objectContaining({ url: 'http://shop.test/f', content_status: 'fetched' }),
        { url: 'http://shop.test/q', content_status: 'failed' },
        // In flight: its fetch finishes within the post-stop window (spec §3).
        { url: 'http://shop.test/d', content_status: 'pending' },
      ]);
      const content = await gw.request('GET', `/v1/crawls/${crawlId}/contents/${queued!.id}`, { key: tenant.api_key });
      expect({ status: content.status, code: content.body.code }).toEqual({ status: 404, code: 'content_not_found' });
    });

    it('returns the final state of an ended crawl unchanged', async () => {
      const stopped = await startCrawl();
      const first = await gw.request('POST', `/v1/crawls/${stopped}/stop`, { key: tenant.api_key });
      const again = await gw.request('POST', `/v1/crawls/${stopped}/stop`, { key: tenant.api_key });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);

      const completed = await startCrawl();
      await endCrawl(gw.sql, completed, 'completed');
      const response = await gw.request('POST', `/v1/crawls/${completed}/stop`, { key: tenant.api_key });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ crawl_id: completed, status: 'completed', finished_at: expect.any(String) });
    });

    it('accepts an empty JSON body and refuses a field', async () => {
      const crawlId = await startCrawl();
      const withType = await gw.request('POST', `/v1/crawls/${crawlId}/stop`, {
        key: tenant.api_key,
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      expect(withType.status).toBe(200);
      const withField = await gw.request('POST', `/v1/crawls/${crawlId}/stop`, { key: tenant.api_key, body: { force: true } });
      expect(withField.status).toBe(400);
      expect(withField.body).toMatchObject({ code: 'unknown_parameter', parameter: 'force' });
    });
  });
});
