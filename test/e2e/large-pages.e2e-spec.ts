import { messagingTopology } from '@trawl/contracts';
import { MessagingConnection } from '@trawl/messaging';
import { waitFor } from '@trawl/testing';
import { FixtureWeb, fixtureHostMap, LARGE_PAGE_LINKS, LARGE_PAGES, largePage, startFixtureWeb } from '../fixtures/web';
import { ApiClient, Platform } from '../support/platform';

/**
 * Pages up to the one body limit (the worker's MAX_BODY_BYTES, 10 MiB by default) come back whole
 * from a crawl with `output_format: html`, a Fetch request and a Batch task alike; one byte more
 * fails clearly in each. Every service as a process with its defaults, only the public API, plus a
 * look at the bodies streams (they must be empty once the results are committed).
 */
describe('Large pages (e2e)', () => {
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;
  let apiKey: string;
  let nats: MessagingConnection;

  const atLimit = () => largePage(LARGE_PAGES.atLimit.bytes);

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    platform = new Platform('large-pages', {
      hostMap: fixtureHostMap(),
      // No browser: every tier here is basic, and Chromium would only cost the machine memory.
      env: { 'fetch-worker': { BROWSERS: '0' } },
    });
    await platform.start();
    const tenant = await platform.createTenant({ max_active_jobs: 10 });
    apiKey = tenant.api_key;
    api = platform.client(apiKey);
    nats = await MessagingConnection.connect({ servers: platform.natsUrl, name: 'e2e-large-pages' });
  }, 120_000);

  afterAll(async () => {
    await nats?.close();
    await platform?.stop();
    await web?.close();
  }, 60_000);

  /** The raw bytes of a public API answer (no text decoding in between). */
  async function bytesOf(path: string): Promise<{ status: number; bytes: Buffer; headers: Headers }> {
    const res = await fetch(`${platform.gatewayUrl}${path}`, { headers: { 'x-api-key': apiKey } });
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  }

  /** Messages left in a bodies stream: spilled bodies are purged once their result is committed. */
  async function messagesIn(stream: 'crawlBodies' | 'batchBodies'): Promise<number> {
    const info = await nats.jsm.streams.info(messagingTopology(platform.prefix).streams[stream]);
    return info.state.messages;
  }

  describe('a crawl with output_format html', () => {
    it('keeps a page of exactly the limit byte for byte, follows its links, and fails the page one byte over', async () => {
      const started = await api.startCrawl({ url: web.url('large.test', '/'), output_format: 'html', max_items: 20 });
      expect(started.status).toBe(202);
      const id = started.body.crawl_id as string;
      const ended = await api.waitUntilEnded(id, 120_000);
      expect(ended.status).toBe('completed');
      const results = await api.readAllResults(id);
      const byPath = new Map(results.map((r) => [new URL(r.url).pathname, r]));
      expect([...byPath.keys()].sort()).toEqual([LARGE_PAGES.atLimit.path, LARGE_PAGES.overLimit.path, ...LARGE_PAGE_LINKS].sort());

      const huge = byPath.get(LARGE_PAGES.atLimit.path)!;
      expect(huge.content_status).toBe('fetched');
      const kept = await bytesOf(huge.content_url!);
      expect(kept.status).toBe(200);
      expect(kept.bytes.length).toBe(LARGE_PAGES.atLimit.bytes);
      expect(kept.bytes.equals(atLimit())).toBe(true);
      // Links at the start, the middle and the very end: the whole page was opened.
      for (const link of LARGE_PAGE_LINKS) expect(byPath.get(link)).toMatchObject({ content_status: 'fetched' });

      const over = byPath.get(LARGE_PAGES.overLimit.path)!;
      expect(over.content_status).toBe('failed');
      expect(over.content_url).toBeUndefined();
      expect(ended.coverage).toMatchObject({ pages_failed: 1 });
      await waitFor(async () => (await messagesIn('crawlBodies')) === 0, { timeoutMs: 10_000, what: 'the spilled HTML to be purged' });
    }, 180_000);
  });

  describe('a Fetch request', () => {
    it('answers a page of exactly the limit whole, and RESP005 one byte over', async () => {
      const query = (path: string) => `/v1/?${new URLSearchParams({ url: web.url('large.test', path) }).toString()}`;
      const whole = await bytesOf(query(LARGE_PAGES.atLimit.path));
      expect(whole.status).toBe(200);
      expect(whole.bytes.equals(atLimit())).toBe(true);
      const over = await bytesOf(query(LARGE_PAGES.overLimit.path));
      expect(over.status).toBe(413);
      expect(JSON.parse(over.bytes.toString('utf8'))).toMatchObject({ code: 'RESP005' });
    }, 60_000);
  });

  describe('a Batch task', () => {
    it('stores a result body of exactly the limit whole, and fails the task one byte over with RESP005', async () => {
      const created = await api.request('POST', '/v1/jobs', {
        tasks: [
          { url: web.url('large.test', LARGE_PAGES.atLimit.path), external_id: 'at-limit' },
          { url: web.url('large.test', LARGE_PAGES.overLimit.path), external_id: 'over-limit' },
        ],
      });
      expect(created.status).toBe(201);
      const jobId = created.body.job_id as string;
      const ended = await api.waitUntilRunEnded(jobId, 120_000);
      expect(ended.latest_run.stats).toMatchObject({ total: 2, successful: 1, failed: 1 });
      const results = (await api.request('GET', `/v1/jobs/${jobId}/results`)).body.results as any[];
      const whole = results.find((r) => r.external_id === 'at-limit');
      expect(whole).toMatchObject({ status: 'successful', status_code: 200 });
      const body = whole.encoding === 'base64' ? Buffer.from(whole.content, 'base64') : Buffer.from(whole.content, 'utf8');
      expect(body.length).toBe(LARGE_PAGES.atLimit.bytes);
      expect(body.equals(atLimit())).toBe(true);
      expect(results.find((r) => r.external_id === 'over-limit')).toMatchObject({ status: 'failed', error: { code: 'RESP005' } });
      await waitFor(async () => (await messagesIn('batchBodies')) === 0, { timeoutMs: 10_000, what: 'the spilled body to be purged' });
    }, 180_000);
  });
});
