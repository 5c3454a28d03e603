import { messagingTopology } from '@trawl/contracts';
import { startTestGateway, TestGateway } from './gateway-harness';

/** Plays the preparer: serves `domain` with recipe `version` and these page types. */
async function serve(gw: TestGateway, domain: string, version: number, options: { needsRender?: boolean } = {}): Promise<void> {
  await gw.sql.query(
    `UPDATE extract_domains SET status = 'ready', recipe_version = $2, needs_render = $3, ready_at = now(),
            page_types = '[{"name":"product","fields":["name","price"]}]' WHERE domain = $1`,
    [domain, version, options.needsRender ?? false],
  );
}

describe('Extract prepared domains', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway({ FETCH_FORBIDDEN_DOMAINS: 'banned.test' });
  });

  afterAll(async () => {
    await gw?.close();
  });

  const prepare = (key: string, body: unknown) => gw.request('POST', '/v1/extract/prepared-domains', { key, body });

  describe('POST /v1/extract/prepared-domains', () => {
    it('queues the registrable domain with its examples, writes the job message to the outbox and counts the ask', async () => {
      const tenant = await gw.createTenant();
      const response = await prepare(tenant.api_key, {
        domain: 'www.queued.test',
        example_urls: ['http://www.queued.test/p/1', 'http://queued.test/p/2#reviews', 'http://www.queued.test/p/1'],
      });
      expect(response.status).toBe(202);
      expect(response.body).toEqual({
        domain: 'queued.test',
        status: 'queued',
        served: false,
        progress: { pages_fetched: 0, pages_analysed: 0 },
        needs_js_render: false,
        page_types: [],
        requested_at: expect.any(String),
      });
      const row = (await gw.sql.query(`SELECT * FROM extract_domains WHERE domain = 'queued.test'`)).rows[0];
      expect(row).toMatchObject({ attempt: 1, example_urls: ['http://www.queued.test/p/1', 'http://queued.test/p/2'] });
      const outbox = (await gw.sql.query(`SELECT subject, payload FROM outbox WHERE payload->>'domain' = 'queued.test'`)).rows;
      expect(outbox).toEqual([
        { subject: messagingTopology(gw.natsPrefix).subjects.extractPreparation, payload: { v: 1, domain: 'queued.test', attempt: 1 } },
      ]);
      const asks = (await gw.sql.query(`SELECT domain FROM extract_domain_requests WHERE tenant_id = $1`, [tenant.tenant_id])).rows;
      expect(asks).toEqual([{ domain: 'queued.test' }]);
    });

    it('does not prepare a domain twice: another tenant asking gets the record, nothing queued, nothing counted', async () => {
      const first = await gw.createTenant();
      const second = await gw.createTenant();
      await prepare(first.api_key, { domain: 'shared.test' });
      const again = await prepare(second.api_key, { domain: 'https://shared.test/some/page', example_urls: ['https://shared.test/p/9'] });
      expect(again.status).toBe(202);
      expect(again.body).toMatchObject({ domain: 'shared.test', status: 'queued' });
      const outbox = (await gw.sql.query(`SELECT count(*)::int AS n FROM outbox WHERE payload->>'domain' = 'shared.test'`)).rows[0].n;
      expect(outbox).toBe(1);
      const counted = (
        await gw.sql.query(`SELECT count(*)::int AS n FROM extract_domain_requests WHERE tenant_id = $1`, [second.tenant_id])
      ).rows[0].n;
      expect(counted).toBe(0);
      // A queued preparation takes the new examples.
      const row = (await gw.sql.query(`SELECT example_urls FROM extract_domains WHERE domain = 'shared.test'`)).rows[0];
      expect(row.example_urls).toEqual(['https://shared.test/p/9']);
    });

    it('asks again for a domain whose preparation failed, as a new attempt', async () => {
      const tenant = await gw.createTenant();
      await prepare(tenant.api_key, { domain: 'retry.test' });
      await gw.sql.query(
        `UPDATE extract_domains SET status = 'failed', failure_reason = 'No page could be fetched.', failed_at = now() WHERE domain = 'retry.test'`,
      );
      const failed = await gw.request('GET', '/v1/extract/prepared-domains/retry.test', { key: tenant.api_key });
      expect(failed.body).toMatchObject({ status: 'failed', failure_reason: 'No page could be fetched.', failed_at: expect.any(String) });
      const again = await prepare(tenant.api_key, { domain: 'retry.test' });
      expect(again.body).toMatchObject({ status: 'queued' });
      expect(again.body).not.toHaveProperty('failure_reason');
      const attempts = (
        await gw.sql.query(`SELECT payload->>'attempt' AS attempt FROM outbox WHERE payload->>'domain' = 'retry.test' ORDER BY created_at`)
      ).rows;
      expect(attempts.map((r) => r.attempt)).toEqual(['1', '2']);
    });

    it('refuses a new domain past the allowance of the period, naming the limit, and still answers domains asked before', async () => {
      const tenant = await gw.createTenant({ extract_domains_per_period: 2 });
      expect((await prepare(tenant.api_key, { domain: 'a-quota.test' })).status).toBe(202);
      expect((await prepare(tenant.api_key, { domain: 'b-quota.test' })).status).toBe(202);
      const refused = await prepare(tenant.api_key, { domain: 'c-quota.test' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(refused.body).toMatchObject({ code: 'extract_domain_quota_exceeded', limit: 2 });
      expect(refused.body.detail).toContain('2 new domains per billing period');
      expect((await gw.sql.query(`SELECT count(*)::int AS n FROM extract_domains WHERE domain = 'c-quota.test'`)).rows[0].n).toBe(0);
      expect((await prepare(tenant.api_key, { domain: 'a-quota.test' })).status).toBe(202);
    });

    it('counts asks made at once one after the other', async () => {
      const tenant = await gw.createTenant({ extract_domains_per_period: 3 });
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => prepare(tenant.api_key, { domain: `race${i}.test` })));
      expect(answers.filter((a) => a.status === 202)).toHaveLength(3);
      expect(answers.filter((a) => a.status === 429)).toHaveLength(5);
    });

    it('refuses what cannot be prepared, naming the field', async () => {
      const tenant = await gw.createTenant();
      const cases: [unknown, number, string, string][] = [
        [{ domain: '127.0.0.1' }, 400, 'invalid_domain', 'domain'],
        [{ domain: 'localhost' }, 400, 'invalid_domain', 'domain'],
        [{ domain: 'ftp://files.test' }, 400, 'invalid_domain', 'domain'],
        [{ domain: 'shop.test', example_urls: ['https://other.test/p/1'] }, 400, 'invalid_example_url', 'example_urls[0]'],
        [{ domain: 'shop.test', example_urls: ['https://shop.test/ok', 'not a url'] }, 400, 'invalid_example_url', 'example_urls[1]'],
        [{ domain: 'banned.test' }, 400, 'REQS001', ''],
        [{ example_urls: [] }, 400, 'invalid_parameter', 'domain'],
        [{ domain: 'shop.test', extra: 1 }, 400, 'unknown_parameter', 'extra'],
      ];
      for (const [body, status, code, parameter] of cases) {
        const response = await prepare(tenant.api_key, body);
        expect({ body, status: response.status, code: response.body.code }).toEqual({ body, status, code });
        if (parameter) expect(response.body.parameter).toBe(parameter);
      }
      expect(
        (await gw.sql.query(`SELECT count(*)::int AS n FROM extract_domain_requests WHERE tenant_id = $1`, [tenant.tenant_id])).rows[0].n,
      ).toBe(0);
    });

    it('needs an API key', async () => {
      expect((await gw.request('POST', '/v1/extract/prepared-domains', { body: { domain: 'x.test' } })).status).toBe(401);
    });
  });

  describe('GET /v1/extract/prepared-domains/{domain}', () => {
    it('answers the record for any key and any host of the domain, with page types once served', async () => {
      const asker = await gw.createTenant();
      const reader = await gw.createTenant();
      await prepare(asker.api_key, { domain: 'served.test', example_urls: ['http://served.test/p/1'] });
      await serve(gw, 'served.test', 1);
      const response = await gw.request('GET', '/v1/extract/prepared-domains/www.served.test', { key: reader.api_key });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        domain: 'served.test',
        status: 'ready',
        served: true,
        recipe_version: 1,
        page_types: [{ name: 'product', fields: ['name', 'price'] }],
        ready_at: expect.any(String),
      });
      // Shared with every tenant, so who asked and with which URLs stays private.
      expect(JSON.stringify(response.body)).not.toContain('/p/1');
    });

    it('answers 404 for a domain never asked for', async () => {
      const tenant = await gw.createTenant();
      const response = await gw.request('GET', '/v1/extract/prepared-domains/never.test', { key: tenant.api_key });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: 'prepared_domain_not_found' });
      expect(response.body.detail).toContain('never.test');
    });
  });

  describe('GET /v1/extract/domains', () => {
    it('lists only served domains in name order, page by page', async () => {
      const tenant = await gw.createTenant({ extract_domains_per_period: 100 });
      for (const name of ['list-c', 'list-a', 'list-b', 'list-d']) await prepare(tenant.api_key, { domain: `${name}.test` });
      for (const name of ['list-c', 'list-a', 'list-b']) await serve(gw, `${name}.test`, 2);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await gw.request('GET', `/v1/extract/domains?limit=2${cursor ? `&cursor=${cursor}` : ''}`, { key: tenant.api_key });
        expect(page.status).toBe(200);
        seen.push(...page.body.domains.map((d: { domain: string }) => d.domain).filter((d: string) => d.startsWith('list-')));
        cursor = page.body.next_cursor;
      } while (cursor);
      expect(seen).toEqual(['list-a.test', 'list-b.test', 'list-c.test']);
      expect((await gw.request('GET', '/v1/extract/domains?cursor=nonsense', { key: tenant.api_key })).body).toMatchObject({
        code: 'invalid_cursor',
      });
    });
  });

  describe('Fetch with extract=auto', () => {
    it('answers REQS007 naming the domain while it is only queued', async () => {
      const tenant = await gw.createTenant();
      await prepare(tenant.api_key, { domain: 'pending.test' });
      const response = await fetch(
        `${gw.baseUrl}/v1/?apikey=${tenant.api_key}&extract=auto&url=${encodeURIComponent('http://www.pending.test/p/1')}`,
      );
      expect(response.status).toBe(403);
      const body = (await response.json()) as { code: string; detail: string };
      expect(body.code).toBe('REQS007');
      expect(body.detail).toContain('pending.test');
    });

    it('answers REQS002 when the served domain needs rendering and the request has none', async () => {
      const tenant = await gw.createTenant();
      await prepare(tenant.api_key, { domain: 'rendered.test' });
      await serve(gw, 'rendered.test', 1, { needsRender: true });
      const response = await fetch(
        `${gw.baseUrl}/v1/?apikey=${tenant.api_key}&autoparse=true&url=${encodeURIComponent('http://rendered.test/p/1')}`,
      );
      expect(response.status).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe('REQS002');
    });
  });
});
