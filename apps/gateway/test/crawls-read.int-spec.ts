import { addResults, endCrawl, startTestGateway, TenantCredentials, TestGateway } from './gateway-harness';

describe('Reading crawls', () => {
  let gw: TestGateway;
  let tenant: TenantCredentials;

  beforeAll(async () => {
    gw = await startTestGateway();
    tenant = await gw.createTenant({ max_active_jobs: 50 });
  });

  afterAll(async () => {
    await gw?.close();
  });

  const startCrawl = async (body: Record<string, unknown> = {}, owner = tenant): Promise<string> => {
    const response = await gw.request('POST', '/v1/crawls', { key: owner.api_key, body: { url: 'http://shop.test/', ...body } });
    if (response.status !== 202) throw new Error(`crawl not started: ${response.text}`);
    return response.body.crawl_id;
  };
  const read = (crawlId: string, query = '', owner = tenant) => gw.request('GET', `/v1/crawls/${crawlId}${query}`, { key: owner.api_key });
  const urlsOf = (response: { body: { results: { url: string }[] } }) => response.body.results.map((r) => r.url);

  describe('GET /v1/crawls/{crawl_id}', () => {
    it('pages through results with a cursor, each URL once, and ends with null once the crawl ended', async () => {
      const crawlId = await startCrawl();
      const empty = await read(crawlId);
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({ crawl_id: crawlId, status: 'running', results: [] });
      expect(empty.body.next_cursor).toEqual(expect.any(String));

      await addResults(gw.sql, crawlId, ['http://shop.test/1', 'http://shop.test/2', 'http://shop.test/3']);
      const first = await read(crawlId, `?limit=2&cursor=${empty.body.next_cursor}`);
      expect(urlsOf(first)).toEqual(['http://shop.test/1', 'http://shop.test/2']);
      const second = await read(crawlId, `?limit=2&cursor=${first.body.next_cursor}`);
      expect(urlsOf(second)).toEqual(['http://shop.test/3']);

      // Nothing new yet while running: an empty page with a cursor that still works.
      const idle = await read(crawlId, `?limit=2&cursor=${second.body.next_cursor}`);
      expect(idle.body.results).toEqual([]);
      expect(idle.body.next_cursor).toEqual(expect.any(String));

      await addResults(gw.sql, crawlId, ['http://shop.test/4']);
      const fresh = await read(crawlId, `?cursor=${idle.body.next_cursor}`);
      expect(urlsOf(fresh)).toEqual(['http://shop.test/4']);

      await endCrawl(gw.sql, crawlId, 'completed');
      const last = await read(crawlId, `?cursor=${fresh.body.next_cursor}`);
      expect(last.body).toMatchObject({ status: 'completed', results: [], next_cursor: null });
      expect(last.body.finished_at).toEqual(expect.any(String));
    });

    it('gives null at once when one read holds every result of an ended crawl, even at exactly limit', async () => {
      const crawlId = await startCrawl();
      await addResults(gw.sql, crawlId, ['http://shop.test/a', 'http://shop.test/b']);
      await endCrawl(gw.sql, crawlId, 'completed', { stopReason: 'max_items' });
      const response = await read(crawlId, '?limit=2');
      expect(urlsOf(response)).toEqual(['http://shop.test/a', 'http://shop.test/b']);
      expect(response.body).toMatchObject({ stop_reason: 'max_items', next_cursor: null });
      const shorter = await read(crawlId, '?limit=1');
      expect(shorter.body.next_cursor).toEqual(expect.any(String));
    });

    it('shows the error of a failed crawl and keeps its URLs readable', async () => {
      const crawlId = await startCrawl();
      await addResults(gw.sql, crawlId, ['http://shop.test/x']);
      await endCrawl(gw.sql, crawlId, 'failed', { errorCode: 'seed_unreachable' });
      const response = await read(crawlId);
      expect(response.body).toMatchObject({
        status: 'failed',
        error: { code: 'seed_unreachable', detail: expect.any(String) },
        next_cursor: null,
      });
      expect(response.body).not.toHaveProperty('stop_reason');
      expect(urlsOf(response)).toEqual(['http://shop.test/x']);
    });

    it('adds content_status and, once fetched, content_url with output_format', async () => {
      const crawlId = await startCrawl({ output_format: 'html' });
      const [fetched] = await addResults(gw.sql, crawlId, ['http://shop.test/f'], { contentStatus: 'fetched' });
      await addResults(gw.sql, crawlId, ['http://shop.test/p'], { contentStatus: 'pending' });
      await addResults(gw.sql, crawlId, ['http://shop.test/x'], { contentStatus: 'failed' });
      const response = await read(crawlId);
      expect(response.body.results).toEqual([
        { url: 'http://shop.test/f', content_status: 'fetched', content_url: `/v1/crawls/${crawlId}/contents/${fetched!.id}` },
        { url: 'http://shop.test/p', content_status: 'pending' },
        { url: 'http://shop.test/x', content_status: 'failed' },
      ]);
    });

    it('refuses a cursor of another crawl with invalid_cursor and a made-up one with invalid_request', async () => {
      const [a, b] = [await startCrawl(), await startCrawl()];
      const cursorOfB = (await read(b)).body.next_cursor;
      const wrongCrawl = await read(a, `?cursor=${cursorOfB}`);
      expect(wrongCrawl.status).toBe(400);
      expect(wrongCrawl.body.code).toBe('invalid_cursor');
      const garbage = await read(a, '?cursor=bm90LWEtY3Vyc29y');
      expect(garbage.status).toBe(400);
      expect(garbage.body.code).toBe('invalid_request');
    });

    it.each(['0', '10001', 'ten', '-1'])('refuses limit=%s with 400 invalid_request', async (limit) => {
      const crawlId = await startCrawl();
      const response = await read(crawlId, `?limit=${limit}`);
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'invalid_request', parameter: 'limit' });
    });

    it('accepts limit=1 and limit=10000, and refuses an unknown query parameter', async () => {
      const crawlId = await startCrawl();
      expect((await read(crawlId, '?limit=1')).status).toBe(200);
      expect((await read(crawlId, '?limit=10000')).status).toBe(200);
      const unknown = await read(crawlId, '?page=2');
      expect(unknown.status).toBe(400);
      expect(unknown.body).toMatchObject({ code: 'unknown_parameter', parameter: 'page' });
    });

    it('answers 404 crawl_not_found for another tenant’s crawl, an unknown id and a malformed id', async () => {
      const other = await gw.createTenant();
      const othersCrawl = await startCrawl({}, other);
      for (const id of [othersCrawl, '5d0a6a55-0000-4000-8000-000000000000', 'not-an-id']) {
        for (const [method, path] of [
          ['GET', `/v1/crawls/${id}`],
          ['GET', `/v1/crawls/${id}/download`],
          ['GET', `/v1/crawls/${id}/contents/1`],
          ['POST', `/v1/crawls/${id}/stop`],
        ] as const) {
          const response = await gw.request(method, path, { key: tenant.api_key });
          expect({ path, status: response.status, code: response.body.code }).toEqual({ path, status: 404, code: 'crawl_not_found' });
        }
      }
      expect((await read(othersCrawl, '', other)).status).toBe(200);
    });
  });

  describe('after a stop', () => {
    it('keeps next_cursor while pages are in flight inside the window, then gives null', async () => {
      const crawlId = await startCrawl();
      await addResults(gw.sql, crawlId, ['http://shop.test/before']);
      const { rows } = await gw.sql.query<{ id: string }>(
        `INSERT INTO crawl_frontier (crawl_id, url_key, url, depth, state, wants_links, wants_content, attempt, lease_until)
         VALUES ($1, decode(md5('inflight'), 'hex'), 'http://shop.test/inflight', 1, 'dispatched', true, false, 1, now() + interval '1 minute')
         RETURNING id`,
        [crawlId],
      );
      const stop = await gw.request('POST', `/v1/crawls/${crawlId}/stop`, { key: tenant.api_key });
      expect(stop.body.status).toBe('stopped');

      const during = await read(crawlId);
      expect(urlsOf(during)).toEqual(['http://shop.test/before']);
      expect(during.body.status).toBe('stopped');
      expect(during.body.next_cursor).toEqual(expect.any(String));

      // The in-flight page lands: its link joins the results and nothing is in flight any more.
      await addResults(gw.sql, crawlId, ['http://shop.test/after']);
      await gw.sql.query(`UPDATE crawl_frontier SET state = 'done' WHERE id = $1`, [rows[0]!.id]);
      const landed = await read(crawlId, `?cursor=${during.body.next_cursor}`);
      expect(urlsOf(landed)).toEqual(['http://shop.test/after']);
      expect(landed.body.next_cursor).toBeNull();
    });

    it('gives null once the window has passed, even with a page still dispatched', async () => {
      const crawlId = await startCrawl();
      await gw.sql.query(
        `INSERT INTO crawl_frontier (crawl_id, url_key, url, depth, state, wants_links, wants_content)
         VALUES ($1, decode(md5('stuck'), 'hex'), 'http://shop.test/stuck', 1, 'dispatched', true, false)`,
        [crawlId],
      );
      await gw.request('POST', `/v1/crawls/${crawlId}/stop`, { key: tenant.api_key });
      expect((await read(crawlId)).body.next_cursor).toEqual(expect.any(String));
      await gw.sql.query(`UPDATE crawls SET stopped_at = now() - interval '11 minutes' WHERE id = $1`, [crawlId]);
      expect((await read(crawlId)).body.next_cursor).toBeNull();
    });
  });

  describe('GET /v1/crawls', () => {
    it('lists the caller’s crawls newest first, in pages, without results', async () => {
      const lister = await gw.createTenant({ max_active_jobs: 10 });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await startCrawl({ url: `http://shop.test/${i}` }, lister));
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const response = await gw.request('GET', `/v1/crawls?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: lister.api_key });
        expect(response.status).toBe(200);
        for (const crawl of response.body.crawls) {
          expect(crawl).not.toHaveProperty('results');
          expect(crawl).not.toHaveProperty('next_cursor');
          seen.push(crawl.crawl_id);
        }
        cursor = response.body.next_cursor;
        pages++;
        if (!cursor) expect(response.body).not.toHaveProperty('next_cursor');
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual([...ids].reverse());
    });

    it('defaults to 20 per page and refuses a bad limit or cursor with invalid_request', async () => {
      const lister = await gw.createTenant({ max_active_jobs: 30 });
      for (let i = 0; i < 21; i++) await startCrawl({}, lister);
      const page = await gw.request('GET', '/v1/crawls', { key: lister.api_key });
      expect(page.body.crawls).toHaveLength(20);
      expect(page.body.next_cursor).toEqual(expect.any(String));
      for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=%24%24%24']) {
        const response = await gw.request('GET', `/v1/crawls?${query}`, { key: lister.api_key });
        expect({ query, status: response.status, code: response.body.code }).toEqual({ query, status: 400, code: 'invalid_request' });
      }
      expect((await gw.request('GET', '/v1/crawls?limit=100', { key: lister.api_key })).body.crawls).toHaveLength(21);
    });

    it('shows no other tenant’s crawls', async () => {
      const loner = await gw.createTenant();
      const response = await gw.request('GET', '/v1/crawls', { key: loner.api_key });
      expect(response.body).toEqual({ crawls: [] });
    });
  });
});
