import { createHash } from 'node:crypto';
import { messagingTopology } from '@trawl/contracts';
import { normalizeUrl, urlKey } from '@trawl/egress';
import { MessagingConnection } from '@trawl/messaging';
import { waitFor } from '@trawl/testing';
import { bodyHash } from '../src/idempotency/canonical-json';
import { startTestGateway, TenantCredentials, TestGateway } from './gateway-harness';

describe('POST /v1/crawls', () => {
  let gw: TestGateway;
  let nats: MessagingConnection;
  const kicks: string[] = [];

  beforeAll(async () => {
    gw = await startTestGateway();
    nats = await MessagingConnection.connect({ servers: 'nats://127.0.0.1:4222', name: 'gateway-test' });
    const subscription = nats.nc.subscribe(messagingTopology(gw.natsPrefix).subjects.crawlKick);
    void (async () => {
      for await (const message of subscription) kicks.push(message.string());
    })();
    await nats.nc.flush();
  });

  afterAll(async () => {
    await nats?.close();
    await gw?.close();
  });

  const start = (tenant: TenantCredentials, body: unknown, headers: Record<string, string> = {}) =>
    gw.request('POST', '/v1/crawls', { key: tenant.api_key, body, headers });
  const crawlCount = async (tenant: TenantCredentials) =>
    (await gw.sql.query(`SELECT count(*)::int AS n FROM crawls WHERE tenant_id = $1`, [tenant.tenant_id])).rows[0].n as number;

  describe('a valid request', () => {
    it('answers 202 with the crawl object and Location, writes crawl and start URL, and kicks', async () => {
      const tenant = await gw.createTenant();
      const response = await start(tenant, { url: 'http://shop.test:9/catalog?page=2' });
      expect(response.status).toBe(202);
      const crawlId = response.body.crawl_id;
      expect(response.headers.get('location')).toBe(`/v1/crawls/${crawlId}`);
      expect(response.body).toEqual({
        crawl_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        status: 'running',
        url: 'http://shop.test:9/catalog?page=2',
        max_items: 100,
        max_pages: 100,
        include_patterns: [],
        exclude_patterns: [],
        sitemap: 'skip',
        respect_robots: false,
        discovery: ['links'],
        sitemap_urls: 0,
        robots_disallowed: 0,
        coverage: { pages_fetched: 0, pages_failed: 0, items_found: 0 },
        duplicates_removed: 0,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });

      const crawl = (await gw.sql.query(`SELECT * FROM crawls WHERE id = $1`, [crawlId])).rows[0];
      expect(crawl).toMatchObject({ tenant_id: tenant.tenant_id, status: 'running', scope_domain: 'shop.test', depth: null });
      const frontier = (await gw.sql.query(`SELECT * FROM crawl_frontier WHERE crawl_id = $1`, [crawlId])).rows;
      expect(frontier).toHaveLength(1);
      expect(frontier[0]).toMatchObject({
        url: 'http://shop.test:9/catalog?page=2',
        depth: 0,
        item_seq: null,
        state: 'queued',
        wants_links: true,
        wants_content: false,
        content_status: null,
      });
      const expectedKey = createHash('md5')
        .update(urlKey(normalizeUrl('http://shop.test:9/catalog?page=2')!))
        .digest();
      expect(frontier[0].url_key.equals(expectedKey)).toBe(true);

      await waitFor(() => kicks.some((kick) => JSON.parse(kick).crawl_id === crawlId), { what: 'the crawl kick' });
    });

    it('echoes every effective setting it was sent', async () => {
      const tenant = await gw.createTenant();
      const body = {
        url: 'https://www.shop.test/',
        depth: 2,
        max_items: 7,
        max_pages: 9,
        include_patterns: ['/p/'],
        exclude_patterns: ['?sort='],
        output_format: 'html',
      };
      const response = await start(tenant, body);
      expect(response.status).toBe(202);
      expect(response.body).toMatchObject({ ...body, discovery: ['links'] });
    });

    it('starts a crawl whose start host does not resolve (it will fail seed_unreachable)', async () => {
      const tenant = await gw.createTenant();
      const response = await start(tenant, { url: 'https://no-such-host.invalid/' });
      expect(response.status).toBe(202);
      expect(response.body.status).toBe('running');
    });
  });

  describe('validation', () => {
    let tenant: TenantCredentials;
    beforeAll(async () => {
      tenant = await gw.createTenant();
    });

    it.each([
      [{ url: 'http://shop.test/', colour: 'red' }, 400, 'unknown_parameter', 'colour'],
      [{}, 400, 'invalid_parameter', 'url'],
      [{ url: 42 }, 400, 'invalid_parameter', 'url'],
      [{ url: 'http://shop.test/', max_items: '5' }, 400, 'invalid_parameter', 'max_items'],
      [{ url: 'http://shop.test/', depth: 1.5 }, 400, 'invalid_parameter', 'depth'],
      [{ url: 'http://shop.test/', include_patterns: 'a' }, 400, 'invalid_parameter', 'include_patterns'],
      [{ url: 'http://shop.test/', exclude_patterns: [1] }, 400, 'invalid_parameter', 'exclude_patterns[0]'],
      [{ url: 'http://shop.test/', output_format: true }, 400, 'invalid_parameter', 'output_format'],
      [{ url: 'http://shop.test/', max_items: 0 }, 422, 'invalid_parameter', 'max_items'],
      [{ url: 'http://shop.test/', max_items: 100_001 }, 422, 'invalid_parameter', 'max_items'],
      [{ url: 'http://shop.test/', max_pages: 0 }, 422, 'invalid_parameter', 'max_pages'],
      [{ url: 'http://shop.test/', max_pages: 100_001 }, 422, 'invalid_parameter', 'max_pages'],
      [{ url: 'http://shop.test/', depth: 0 }, 422, 'invalid_parameter', 'depth'],
      [{ url: 'http://shop.test/', depth: 100_001 }, 422, 'invalid_parameter', 'depth'],
      [{ url: 'http://shop.test/', output_format: 'markdown' }, 422, 'invalid_parameter', 'output_format'],
    ])('refuses %j with %i %s naming the field', async (body, status, code, parameter) => {
      const response = await start(tenant, body);
      expect(response.status).toBe(status);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(response.body).toMatchObject({ status, code, parameter });
      expect(response.body.detail).toContain(`\`${parameter}\``);
    });

    it('refuses a body that is a JSON array with 400 invalid_request', async () => {
      const response = await start(tenant, [{ url: 'http://shop.test/' }]);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_request');
    });

    it('refuses an unknown query parameter', async () => {
      const response = await gw.request('POST', '/v1/crawls?fast=1', { key: tenant.api_key, body: { url: 'http://shop.test/' } });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ code: 'unknown_parameter', parameter: 'fast' });
    });

    it.each([
      ['http://127.0.0.1/', 'http://127.0.0.1/'],
      ['http://[::1]/', 'http://[::1]/'],
      ['http://2130706433/', 'http://2130706433/'],
      ['a public IP host', 'http://8.8.8.8/'],
      ['http://localhost:1/', 'http://localhost:1/'],
      ['ftp://shop.test/', 'ftp://shop.test/'],
      ['a URL without scheme', 'shop.test/no-scheme'],
      ['a URL over 2,048 characters', `http://shop.test/${'a'.repeat(2_040)}`],
    ])('refuses %s with 422 invalid_start_url and starts nothing', async (_what, url) => {
      const response = await start(tenant, { url });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('invalid_start_url');
      expect(await crawlCount(tenant)).toBe(0);
    });
  });

  describe('active job limit', () => {
    it('refuses the 4th running crawl with 429 and Retry-After: 30', async () => {
      const tenant = await gw.createTenant();
      for (let i = 0; i < 3; i++) expect((await start(tenant, { url: `http://shop.test/${i}` })).status).toBe(202);
      const refused = await start(tenant, { url: 'http://shop.test/4' });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(refused.body.code).toBe('too_many_crawls');
      expect(await crawlCount(tenant)).toBe(3);
    });

    it('lets a crawl start once another has ended', async () => {
      const tenant = await gw.createTenant({ max_active_jobs: 1 });
      const first = await start(tenant, { url: 'http://shop.test/' });
      expect((await start(tenant, { url: 'http://shop.test/' })).status).toBe(429);
      await gw.request('POST', `/v1/crawls/${first.body.crawl_id}/stop`, { key: tenant.api_key });
      expect((await start(tenant, { url: 'http://shop.test/' })).status).toBe(202);
    });

    it('admits exactly 3 of 6 concurrent starts', async () => {
      const tenant = await gw.createTenant();
      const responses = await Promise.all(Array.from({ length: 6 }, (_, i) => start(tenant, { url: `http://shop.test/${i}` })));
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([202, 202, 202, 429, 429, 429]);
      expect(await crawlCount(tenant)).toBe(3);
    });
  });

  describe('Idempotency-Key', () => {
    const body = { url: 'http://shop.test/idem' };

    it('returns the same crawl for the same key and body, and starts one crawl', async () => {
      const tenant = await gw.createTenant();
      const first = await start(tenant, body, { 'idempotency-key': 'order-1' });
      const second = await start(tenant, { ...body }, { 'idempotency-key': 'order-1' });
      expect(first.status).toBe(202);
      expect(second.status).toBe(202);
      expect(second.body.crawl_id).toBe(first.body.crawl_id);
      expect(second.headers.get('location')).toBe(`/v1/crawls/${first.body.crawl_id}`);
      expect(await crawlCount(tenant)).toBe(1);
    });

    it('replays the crawl in its current state', async () => {
      const tenant = await gw.createTenant();
      const first = await start(tenant, body, { 'idempotency-key': 'k' });
      await gw.request('POST', `/v1/crawls/${first.body.crawl_id}/stop`, { key: tenant.api_key });
      const replay = await start(tenant, body, { 'idempotency-key': 'k' });
      expect(replay.status).toBe(202);
      expect(replay.body).toMatchObject({ crawl_id: first.body.crawl_id, status: 'stopped', stop_reason: 'user' });
    });

    it('refuses the same key with another body with 422 idempotency_key_reused', async () => {
      const tenant = await gw.createTenant();
      await start(tenant, body, { 'idempotency-key': 'k' });
      const response = await start(tenant, { ...body, max_items: 5 }, { 'idempotency-key': 'k' });
      expect(response.status).toBe(422);
      expect(response.body.code).toBe('idempotency_key_reused');
      expect(await crawlCount(tenant)).toBe(1);
    });

    it('answers 409 while the first request is in flight, and takes over one that died', async () => {
      const tenant = await gw.createTenant();
      await gw.sql.query(
        `INSERT INTO idempotency_keys (tenant_id, scope, key, body_hash, state) VALUES ($1, 'crawls.create', 'k', $2, 'in_flight')`,
        [tenant.tenant_id, bodyHash(body)],
      );
      const response = await start(tenant, body, { 'idempotency-key': 'k' });
      expect(response.status).toBe(409);
      expect(response.body.code).toBe('idempotency_request_in_flight');
      expect(await crawlCount(tenant)).toBe(0);

      await gw.sql.query(`UPDATE idempotency_keys SET updated_at = now() - interval '61 seconds' WHERE tenant_id = $1`, [tenant.tenant_id]);
      const takeover = await start(tenant, body, { 'idempotency-key': 'k' });
      expect(takeover.status).toBe(202);
      const row = (await gw.sql.query(`SELECT state, resource_id FROM idempotency_keys WHERE tenant_id = $1`, [tenant.tenant_id])).rows[0];
      expect(row).toEqual({ state: 'done', resource_id: takeover.body.crawl_id });
    });

    it('starts one crawl for concurrent retries: the others see it in flight or replay it', async () => {
      const tenant = await gw.createTenant();
      const responses = await Promise.all(Array.from({ length: 4 }, () => start(tenant, body, { 'idempotency-key': 'race' })));
      const accepted = responses.filter((response) => response.status === 202);
      const refused = responses.filter((response) => response.status !== 202);
      expect(accepted.length).toBeGreaterThanOrEqual(1);
      expect(new Set(accepted.map((response) => response.body.crawl_id)).size).toBe(1);
      for (const response of refused) expect(response.body.code).toBe('idempotency_request_in_flight');
      expect(await crawlCount(tenant)).toBe(1);
    });

    it('keeps keys apart per tenant', async () => {
      const [a, b] = [await gw.createTenant(), await gw.createTenant()];
      const first = await start(a, body, { 'idempotency-key': 'shared' });
      const second = await start(b, { url: 'http://other.test/' }, { 'idempotency-key': 'shared' });
      expect(second.status).toBe(202);
      expect(second.body.crawl_id).not.toBe(first.body.crawl_id);
    });

    it('gives the key back when the request is refused', async () => {
      const tenant = await gw.createTenant({ max_active_jobs: 1 });
      expect((await start(tenant, { url: 'http://127.0.0.1/' }, { 'idempotency-key': 'k1' })).status).toBe(422);
      await start(tenant, { url: 'http://shop.test/busy' });
      expect((await start(tenant, body, { 'idempotency-key': 'k2' })).status).toBe(429);
      const keys = await gw.sql.query(`SELECT key FROM idempotency_keys WHERE tenant_id = $1`, [tenant.tenant_id]);
      expect(keys.rows).toEqual([]);
    });

    it('refuses a key over 255 characters with 400 invalid_request', async () => {
      const tenant = await gw.createTenant();
      const response = await start(tenant, body, { 'idempotency-key': 'k'.repeat(256) });
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('invalid_request');
      expect((await start(tenant, body, { 'idempotency-key': 'k'.repeat(255) })).status).toBe(202);
    });
  });
});
