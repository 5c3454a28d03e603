import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { waitFor } from '@trawl/testing';
import {
  TrawlAbortError,
  TrawlApiError,
  TrawlClient,
  TrawlConnectionError,
  verifyWebhook,
  WebhookVerificationError,
  type RetryEvent,
  type TrawlClientOptions,
} from '@trawl/sdk';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { EXTRACT_SITES, siteUrl } from '../fixtures/web/sites/extract';
import { createTestTls, WebhookReceiver } from '../fixtures/webhook-receiver';
import { Platform } from '../support/platform';

/**
 * The TypeScript SDK (libs/sdk) against the real platform: every service as a process, the fixture
 * web on loopback, a real HTTPS webhook receiver. Failures are real too: a tenant's concurrency
 * limit answers 429, a platform without fetch workers answers 503, and a connection that breaks
 * after the server acted is a response thrown away on its way back.
 */
describe('TypeScript SDK (e2e)', () => {
  const tls = createTestTls();
  const receiver = new WebhookReceiver(tls);
  let web: FixtureWeb;
  let platform: Platform;
  let apiKey: string;

  beforeAll(async () => {
    await receiver.start();
    const caFile = tls.writeCa(join(mkdtempSync(join(tmpdir(), 'trawl-sdk-')), 'ca.pem'));
    web = await startFixtureWeb({ bigSitePages: 60 });
    platform = new Platform('sdk', {
      hostMap: `${fixtureHostMap()},hooks.test=127.0.0.1`,
      env: {
        all: { SECRETS_KEY: randomBytes(32).toString('base64'), NODE_EXTRA_CA_CERTS: caFile },
        scheduler: { PREPARE_FETCH_INTERVAL_MS: '100' },
        'webhook-dispatcher': { WEBHOOK_POLL_INTERVAL_MS: '100' },
      },
    });
    await platform.start();
    const tenant = await platform.createTenant({ max_active_jobs: 20, credits: 1_000_000 });
    apiKey = tenant.api_key;
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
    await web?.close();
    await receiver.stop();
  }, 60_000);

  function client(options: TrawlClientOptions = {}): TrawlClient {
    return new TrawlClient({ apiKey, baseUrl: platform.gatewayUrl, ...options });
  }

  /**
   * A `fetch` whose first call matching `drop` reaches the server, which acts on it, and then
   * loses the answer: what a connection reset after the commit looks like to a client.
   */
  function losingFirstAnswer(drop: (method: string, url: URL) => boolean): { fetch: typeof fetch; sent: () => number } {
    let dropped = false;
    let sent = 0;
    const lossy: typeof fetch = async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const method = init?.method ?? 'GET';
      const matches = drop(method, url);
      if (matches) sent++;
      const response = await fetch(input, init);
      if (matches && !dropped) {
        dropped = true;
        await response.arrayBuffer();
        throw new TypeError('fetch failed', { cause: new Error('socket hang up') });
      }
      return response;
    };
    return { fetch: lossy, sent: () => sent };
  }

  describe('fetch', () => {
    it('fetches a page and reports its credits; JSON parameters are given as values', async () => {
      const trawl = client();
      const page = await trawl.fetch.page(web.url('big.test', '/'));
      expect(page.status).toBe(200);
      expect(page.text()).toContain('page 1');
      expect(page.credits).toBe(1);
      expect(page.concurrency.limit).toBeGreaterThan(0);
      const extracted = await trawl.fetch.page(web.url('big.test', '/'), { css_extractor: { links: 'a @href' } });
      expect(extracted.json<{ links: string[] }>().links).toContain(web.url('big.test', '/p/1'));
    });

    it('throws a typed error carrying the problem', async () => {
      const error = await client()
        .fetch.page(web.url('big.test', '/'), { wait: 500 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TrawlApiError);
      const problem = error as TrawlApiError;
      expect({ status: problem.status, code: problem.code }).toEqual({ status: 400, code: 'REQS004' });
      expect(problem.detail).toContain('js_render');
      expect(problem.instance).toEqual(expect.any(String));
    });

    it('retries the 429s of the account’s concurrency limit and then keeps under it', async () => {
      const tenant = await platform.createTenant({ concurrency: 1, credits: 1_000 });
      const retries: RetryEvent[] = [];
      const trawl = new TrawlClient({
        apiKey: tenant.api_key,
        baseUrl: platform.gatewayUrl,
        maxConcurrency: 4,
        retry: { baseDelayMs: 200, maxRetries: 10 },
        onRetry: (event) => retries.push(event),
      });
      const pages = await Promise.all([1, 2, 3, 4].map((i) => trawl.fetch.page(web.url('slow.test', `/slow/${i}?ms=400`))));
      expect(pages.map((page) => page.status)).toEqual([200, 200, 200, 200]);
      expect(retries.filter((event) => event.status === 429).length).toBeGreaterThan(0);
      // Once told the limit, it sends one at a time: no further 429.
      const before = retries.length;
      await Promise.all([5, 6, 7].map((i) => trawl.fetch.page(web.url('slow.test', `/slow/${i}?ms=100`))));
      expect(retries.length).toBe(before);
    });

    it('retries a 503 until fetch workers are back', async () => {
      await platform.kill('fetch-worker', 'SIGTERM');
      let restarting: Promise<void> | undefined;
      const retries: RetryEvent[] = [];
      const trawl = client({
        retry: { baseDelayMs: 1_000, maxDelayMs: 2_000, maxRetries: 30 },
        onRetry: (event) => {
          retries.push(event);
          restarting ??= platform.startService('fetch-worker');
        },
      });
      const page = await trawl.fetch.page(web.url('big.test', '/p/1'));
      await restarting;
      expect(page.status).toBe(200);
      expect(retries[0]).toMatchObject({ status: 503 });
    }, 60_000);
  });

  describe('crawls', () => {
    it('starts once though the answer was lost, iterates results across pages, and downloads the same as NDJSON', async () => {
      const lossy = losingFirstAnswer((method, url) => method === 'POST' && url.pathname === '/v1/crawls');
      const trawl = client({ fetch: lossy.fetch });
      const seed = web.url('big.test', '/');
      const crawl = await trawl.crawls.start({ url: seed, max_items: 40 });
      expect(lossy.sent()).toBe(2);
      const mine = [];
      for await (const listed of client().crawls.list({ limit: 2 })) if (listed.url === seed) mine.push(listed.crawl_id);
      expect(mine).toEqual([crawl.crawl_id]);

      const pages: number[] = [];
      const results = [];
      for await (const result of trawl.crawls.results(crawl.crawl_id, {
        pageSize: 7,
        pollIntervalMs: 200,
        onPage: (page) => pages.push(page.results.length),
      }))
        results.push(result);
      expect(results).toHaveLength(40);
      expect(pages.filter((count) => count > 0).length).toBeGreaterThanOrEqual(6);
      const downloaded = [];
      for await (const line of trawl.crawls.download(crawl.crawl_id)) downloaded.push(line.url);
      expect(downloaded.sort()).toEqual(results.map((result) => result.url).sort());
    });

    it('waits for a crawl with progress, and stops waiting when aborted', async () => {
      const trawl = client();
      const crawl = await trawl.crawls.start({ url: web.url('slow.test', '/?ms=1500'), max_items: 100 });
      const controller = new AbortController();
      const seen: string[] = [];
      const waiting = trawl.crawls.waitFor(crawl.crawl_id, {
        pollIntervalMs: 200,
        signal: controller.signal,
        onProgress: (state) => {
          seen.push(state.status);
          controller.abort();
        },
      });
      await expect(waiting).rejects.toBeInstanceOf(TrawlAbortError);
      expect(seen).toEqual(['running']);
      await trawl.crawls.stop(crawl.crawl_id);
      const ended = await trawl.waitForCrawl(crawl.crawl_id, { pollIntervalMs: 200, onProgress: (state) => seen.push(state.status) });
      expect(ended.status).toBe('stopped');
    }, 60_000);
  });

  describe('batch', () => {
    it('creates one job though the answer was lost, runs a CSV input, waits with progress and pages through results', async () => {
      const trawl = client();
      const urls = Array.from({ length: 9 }, (_, i) => web.url('big.test', `/p/${i + 1}`));
      const input = await trawl.jobInputs.uploadCsv(['url', ...urls].join('\n') + '\n');
      expect(input).toMatchObject({ state: 'uploaded', rows: 9 });

      const lossy = losingFirstAnswer((method, url) => method === 'POST' && url.pathname === '/v1/jobs');
      const job = await client({ fetch: lossy.fetch }).jobs.create({ file_input_id: input.file_input_id, service_params: {} });
      expect(lossy.sent()).toBe(2);
      const progress: number[] = [];
      const run = await trawl.waitForRun(job.job_id, undefined, {
        pollIntervalMs: 200,
        onProgress: (state) => progress.push(state.stats.completed),
      });
      expect(run).toMatchObject({ status: 'completed', stats: { total: 9, successful: 9 } });
      expect(progress[progress.length - 1]).toBe(9);

      const results = [];
      for await (const result of trawl.jobs.results(job.job_id, { limit: 2 })) results.push(result);
      expect(results.map((result) => result.url).sort()).toEqual([...urls].sort());
      const jobs = [];
      for await (const listed of trawl.jobs.list({ limit: 1 })) if (listed.file_input_id === input.file_input_id) jobs.push(listed.job_id);
      expect(jobs).toEqual([job.job_id]);

      const exported = await trawl.jobs.createExport(job.job_id);
      const archive = await new Response(await trawl.jobs.downloadExport(job.job_id, exported.export_id)).arrayBuffer();
      expect(gunzipSync(Buffer.from(archive)).length).toBeGreaterThan(0);
    }, 90_000);

    it('never resends tasks whose answer was lost: it fails instead of adding them twice', async () => {
      const trawl = client();
      const job = await trawl.jobs.create({ status: 'open', tasks: [{ url: web.url('big.test', '/p/20') }] });
      const lossy = losingFirstAnswer((method, url) => method === 'POST' && url.pathname.endsWith('/tasks'));
      await expect(
        client({ fetch: lossy.fetch }).jobs.addTasks(job.job_id, [{ url: web.url('big.test', '/p/21') }]),
      ).rejects.toBeInstanceOf(TrawlConnectionError);
      expect(lossy.sent()).toBe(1);
      expect((await trawl.jobs.get(job.job_id)).task_count).toBe(2);
      await trawl.jobs.close(job.job_id);
    });

    it('verifies signed deliveries across a key rotation', async () => {
      const trawl = client();
      const first = await trawl.signingKeys.rotate();
      const job = await trawl.jobs.create({
        tasks: [{ url: web.url('big.test', '/p/30') }],
        webhook: { url: receiver.url('/sdk-run'), signature: true },
      });
      await trawl.jobs.waitForRun(job.job_id, undefined, { pollIntervalMs: 200 });
      const delivered = await waitFor(() => receiver.received.find((hook) => hook.path === '/sdk-run'), {
        timeoutMs: 20_000,
        what: 'the run’s webhook',
      });
      const verified = verifyWebhook<{ event_type: string; job_id: string }>(delivered.rawBody, delivered.headers, [first]);
      expect(verified).toMatchObject({ kid: first.kid, event: { event_type: 'run.completed', job_id: job.job_id } });

      const second = await trawl.signingKeys.rotate();
      const secrets = [first, second];
      const during = await trawl.signingKeys.testWebhook({ url: receiver.url('/sdk-during'), signature: true });
      const duringHook = receiver.forEvent(during.event_id)[0];
      expect(verifyWebhook(duringHook.rawBody, duringHook.headers, secrets).kid).toBe(first.kid);

      await trawl.signingKeys.finalizeRotation();
      const after = await trawl.signingKeys.testWebhook({ url: receiver.url('/sdk-after'), signature: true });
      const afterHook = receiver.forEvent(after.event_id)[0];
      expect(verifyWebhook(afterHook.rawBody, afterHook.headers, secrets).kid).toBe(second.kid);
      // A receiver that never took the new key refuses it, by name.
      expect(() => verifyWebhook(afterHook.rawBody, afterHook.headers, [first])).toThrow(WebhookVerificationError);
      // A delivery replayed past the window is refused.
      expect(() => verifyWebhook(afterHook.rawBody, afterHook.headers, secrets, { now: Date.now() + 10 * 60_000 })).toThrow(/tolerance/);
    }, 60_000);
  });

  describe('the rest of the API', () => {
    it('controls runs, reruns, costs, schedules, webhooks and keys', async () => {
      const trawl = client();
      const job = await trawl.jobs.create({
        status: 'open',
        tasks: [{ url: web.url('slow.test', '/slow/1?ms=3000') }, { url: web.url('fail.test', '/reset') }],
      });
      const paused = await trawl.jobs.control(job.job_id, 'pause');
      expect(paused.status).toBe('paused');
      expect((await trawl.jobs.control(job.job_id, 'resume')).status).toMatch(/^(queued|running)$/);
      await trawl.jobs.close(job.job_id);
      const first = await trawl.jobs.waitForRun(job.job_id, undefined, { pollIntervalMs: 200, timeoutMs: 30_000 });
      expect(first.stats).toMatchObject({ total: 2, failed: 1 });
      expect((await trawl.jobs.costEstimate(job.job_id)).credits).toEqual({ min: 2, max: 2 });
      expect((await trawl.jobs.runCost(job.job_id, first.run_id)).run_id).toBe(first.run_id);
      const retried = await trawl.jobs.retryFailed(job.job_id);
      expect(retried.kind).toBe('retry_failed');
      const retriedRun = await trawl.jobs.waitForRun(job.job_id, retried.run_id, { pollIntervalMs: 200, timeoutMs: 30_000 });
      expect(retriedRun).toMatchObject({ kind: 'retry_failed', status: 'completed' });
      const rerun = await trawl.jobs.rerun(job.job_id);
      expect(rerun.kind).toBe('rerun');
      expect((await trawl.jobs.control(job.job_id, 'cancel')).status).toMatch(/^(stopped|deleted|failed|completed)$/);
      const runs = [];
      for await (const run of trawl.jobs.runs(job.job_id)) runs.push(run.kind);
      expect(runs.sort()).toEqual(['initial', 'rerun', 'retry_failed']);
      expect((await trawl.jobs.run(job.job_id, first.run_id)).run_id).toBe(first.run_id);

      const scheduled = await trawl.jobs.create({
        type: 'scheduled',
        tasks: [{ url: web.url('big.test', '/p/40') }],
        schedule: { rate: { every: 1, unit: 'day' } },
      });
      expect((await trawl.jobs.setScheduleState(scheduled.job_id, 'paused')).schedule?.schedule_state).toBe('paused');
      expect(
        (await trawl.jobs.setSchedule(scheduled.job_id, { rate: { every: 2, unit: 'day' }, schedule_state: 'active' })).schedule?.rate,
      ).toEqual({ every: 2, unit: 'day' });
      const firings = [];
      for await (const firing of trawl.jobs.scheduleFirings(scheduled.job_id)) firings.push(firing);
      expect(firings).toEqual([]);

      const keys = await trawl.signingKeys.list();
      expect(keys.active_kid).toEqual(expect.any(String));
      expect((await trawl.jobs.setWebhook(job.job_id, { url: receiver.url('/sdk-set'), signature: false })).webhook).toEqual({
        url: receiver.url('/sdk-set'),
        signature: false,
      });
      const deliveries = [];
      for await (const delivery of trawl.jobs.webhookDeliveries(job.job_id)) deliveries.push(delivery);
      expect(Array.isArray(deliveries)).toBe(true);
      await trawl.jobs.removeWebhook(job.job_id);
      expect((await trawl.jobs.get(job.job_id)).webhook).toBeUndefined();

      const slot = await trawl.jobInputs.create({ type: 'csv', csv: { header: false, fields: { url: 0 } } });
      expect(await trawl.jobInputs.upload(slot, `${web.url('big.test', '/p/41')}\n`)).toMatchObject({ state: 'uploaded', rows: 1 });
    }, 90_000);

    it('reads kept page content, sends a body to a target, and sets the captcha solver', async () => {
      const trawl = client();
      const crawl = await trawl.crawls.start({ url: web.url('big.test', '/'), max_items: 3, output_format: 'html' });
      await trawl.crawls.waitFor(crawl.crawl_id, { pollIntervalMs: 200, timeoutMs: 30_000 });
      const results = [];
      for await (const result of trawl.crawls.results(crawl.crawl_id)) results.push(result);
      const kept = await waitFor(
        async () =>
          (await trawl.crawls.get(crawl.crawl_id)).results.find((result) => result.content_status === 'fetched' && result.content_url),
        { timeoutMs: 20_000, what: 'a kept page' },
      );
      const contentId = kept.content_url!.split('/').pop()!;
      expect(await trawl.crawls.content(crawl.crawl_id, contentId)).toContain('<a href=');

      const echoed = await trawl.fetch.page(web.url('echo.test', '/echo'), {}, { body: { method: 'POST', data: 'a=1&b=2' } });
      expect(echoed.text()).toContain('a=1&b=2');

      const solver = await trawl.account.setCaptchaSolver({ endpoint: 'https://solver.example/api', key: 'k-123' });
      expect(solver.captcha_solver).toMatchObject({ endpoint: 'https://solver.example/api', key_configured: true });
      expect(JSON.stringify(await trawl.account.captchaSolver())).not.toContain('k-123');
      await trawl.account.removeCaptchaSolver();
      expect((await trawl.account.captchaSolver()).captcha_solver).toBeNull();
      expect((await trawl.extract.get(EXTRACT_SITES[0].host).catch((error: TrawlApiError) => error)).status).toEqual(expect.any(Number));
    }, 60_000);
  });

  describe('extract and account', () => {
    it('prepares a domain, waits for it, and extracts a page', async () => {
      const trawl = client();
      const site = EXTRACT_SITES.find((candidate) => !candidate.jsRender && candidate.host.includes('labels'))!;
      const asked = await trawl.extract.prepare({
        domain: site.host,
        example_urls: site.examplePaths.map((path) => siteUrl(site, web.port, path)),
      });
      expect(asked.domain).toBe(site.host);
      const ready = await trawl.extract.waitFor(site.host, { pollIntervalMs: 500, timeoutMs: 120_000 });
      expect(ready.status).toBe('ready');
      const domains = [];
      for await (const served of trawl.extract.domains({ limit: 1 })) domains.push(served.domain);
      expect(domains).toContain(site.host);
      const answer = await trawl.fetch.extract(siteUrl(site, web.port, site.heldOutPaths[0]));
      expect(Object.keys(answer.parsed).length).toBeGreaterThan(3);
    }, 150_000);

    it('reads the account’s usage', async () => {
      const usage = await client().account.usage();
      expect(usage).toMatchObject({ credits_left: expect.any(Number), concurrency_limit: expect.any(Number) });
      expect(usage.credits_used).toBeGreaterThan(0);
    });
  });
});
