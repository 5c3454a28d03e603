import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { createServer as createHttpsServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { Agent, buildConnector, fetch as undiciFetch } from 'undici';
import { Rate, ZenRows, ZenRowsBatchClient, ZenRowsBatchError } from 'zenrows';
import { waitFor } from '@trawl/testing';
import { FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { createTestTls, WebhookReceiver } from '../fixtures/webhook-receiver';
import { Platform } from '../support/platform';

const execFileAsync = promisify(execFile);

/** Where the public Node SDK sends Fetch requests; it has no option to change it. */
const ZENROWS_API_HOST = 'api.zenrows.com';

/**
 * The public Node SDK of the API the specs describe (npm `zenrows`, pinned), unchanged, against
 * Trawl: a team switches by pointing it at Trawl. The Batch client takes a base URL; the Fetch
 * client's URL is fixed, so its connections are routed (as a DNS entry or a proxy would route them)
 * to a TLS front for `api.zenrows.com` in front of the gateway, with a certificate of a test CA.
 */
describe('the public Node SDK (npm zenrows) against Trawl (e2e)', () => {
  const tls = createTestTls(['hooks.test', 'localhost', '127.0.0.1']);
  const frontTls = createTestTls([ZENROWS_API_HOST]);
  const receiver = new WebhookReceiver(tls);
  const scratch = mkdtempSync(join(tmpdir(), 'trawl-zenrows-'));
  let web: FixtureWeb;
  let platform: Platform;
  let front: Server;
  let apiKey: string;
  let batch: ZenRowsBatchClient;

  beforeAll(async () => {
    await receiver.start();
    web = await startFixtureWeb({ bigSitePages: 20 });
    platform = new Platform('zenrows', {
      hostMap: `${fixtureHostMap()},hooks.test=127.0.0.1`,
      env: {
        all: { SECRETS_KEY: randomBytes(32).toString('base64'), NODE_EXTRA_CA_CERTS: tls.writeCa(join(scratch, 'ca.pem')) },
        'webhook-dispatcher': { WEBHOOK_POLL_INTERVAL_MS: '100' },
      },
    });
    await platform.start();
    apiKey = (await platform.createTenant({ max_active_jobs: 20, credits: 1_000_000 })).api_key;
    batch = new ZenRowsBatchClient(apiKey, { baseURL: `${platform.gatewayUrl}/v1` });
    front = await startFront(platform.gatewayUrl);
  }, 180_000);

  afterAll(async () => {
    front?.close();
    await platform?.stop();
    await web?.close();
    await receiver.stop();
    rmSync(scratch, { recursive: true, force: true });
  }, 60_000);

  /** An HTTPS server for `api.zenrows.com` that hands every request to the gateway as it came. */
  async function startFront(gatewayUrl: string): Promise<Server> {
    const gateway = new URL(gatewayUrl);
    const server = createHttpsServer({ cert: frontTls.certPem, key: frontTls.keyPem }, (req, res) => {
      const upstream = httpRequest(
        { host: gateway.hostname, port: gateway.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return server;
  }

  /** The SDK's Fetch client, whose connections to api.zenrows.com:443 reach the front (TLS checked against the test CA). */
  function zenrows(): ZenRows {
    const port = (front.address() as { port: number }).port;
    const connect = buildConnector({ ca: frontTls.caPem });
    const dispatcher = new Agent({
      connect: (options, callback) =>
        connect({ ...options, hostname: '127.0.0.1', port: String(port), servername: ZENROWS_API_HOST }, callback),
    });
    const routed = ((input: Parameters<typeof undiciFetch>[0], init?: Parameters<typeof undiciFetch>[1]) =>
      undiciFetch(input, { ...init, dispatcher })) as unknown as typeof fetch;
    // The client binds the global fetch when it is made (fetch-retry); it is put back at once.
    const global = globalThis.fetch;
    globalThis.fetch = routed;
    try {
      return new ZenRows(apiKey);
    } finally {
      globalThis.fetch = global;
    }
  }

  describe('Fetch (ZenRows)', () => {
    it('fetches a page with parameters, and posts a body, at the API host the SDK is built for', async () => {
      const client = zenrows();
      const page = await client.fetch(web.url('big.test', '/p/1'));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<html');
      const extracted = await client.fetch(web.url('big.test', '/'), { css_extractor: JSON.stringify({ links: 'a @href' }) });
      expect(((await extracted.json()) as { links: string[] }).links).toContain(web.url('big.test', '/p/1'));
      const posted = await client.post(web.url('echo.test', '/echo'), {}, { data: { a: 1 } });
      expect(posted.status).toBe(200);
      expect((await posted.json()) as { method: string; body: string }).toMatchObject({ method: 'POST', body: '{"a":1}' });
    });

    it("answers extract() on a domain not prepared with the spec's 403 REQS007", async () => {
      const answer = await zenrows().extract(web.url('big.test', '/p/2'));
      expect(answer.status).toBe(403);
      expect(await answer.json()).toMatchObject({ code: 'REQS007' });
    });
  });

  describe('Batch (ZenRowsBatchClient)', () => {
    const pages = (from: number, n: number) => Array.from({ length: n }, (_, i) => web.url('big.test', `/p/${from + i}`));

    it('runs a one-shot job with job and task parameters, and reads its results every way the SDK offers', async () => {
      const urls = pages(1, 3);
      // The SDK's task type has no parameters of its own, its wire format does: sent as a task object.
      const own = { url: urls[1], external_id: 'second', zenrows_params: { response_type: 'plaintext' } } as {
        url: string;
        external_id: string;
      };
      const job = await batch.submitRegular([urls[0], own, web.url('fail.test', '/e500')], undefined, {
        zenrowsParams: { response_type: 'markdown' },
      });
      const run = await batch.waitForRun(job.jobId, { timeout: 60, pollInterval: 0.5 });
      expect(run.status).toBe('completed');

      const results = [];
      for await (const result of batch.iterResults(job.jobId)) results.push(result);
      expect(results.map((result) => [result.task_id, result.status])).toEqual([
        ['1', 'successful'],
        ['2', 'successful'],
        ['3', 'failed'],
      ]);
      expect(results[1]).toMatchObject({
        external_id: 'second',
        run_id: run.run_id,
        result_url: expect.any(String),
        output_format: 'plaintext',
      });
      expect(results[0]).toMatchObject({ output_format: 'markdown' });

      const inMemory = await batch.downloadToMemory(job.jobId, run.run_id);
      expect(inMemory.map((downloaded) => downloaded.taskId)).toEqual(['1', '2']);
      // What the signed result_url serves is the result's content as the results page gives it.
      expect(inMemory.map((downloaded) => downloaded.body.toString())).toEqual(
        results.slice(0, 2).map((result) => (result as { content?: string }).content),
      );
      expect(await batch.getTaskContent(job.jobId, '2')).toBe((await batch.downloadTaskToMemory(results[1])).toString());
      const history = await batch.getTaskHistory(job.jobId, '1', { runId: run.run_id });
      expect(history.events).toEqual([
        expect.objectContaining({ attempt: 1, started_at: expect.any(String), ended_at: expect.any(String) }),
      ]);
      expect(await batch.downloadToDir(job.jobId, run.run_id, join(scratch, 'one-shot'))).toBe(2);
    }, 90_000);

    it('prices a submission locally the way Trawl bills it', () => {
      const estimate = batch.estimateCost([pages(1, 1)[0], { url: pages(2, 1)[0], zenrows_params: { js_render: 'true' } }], {
        premium_proxy: 'true',
      });
      expect(estimate).toMatchObject({ taskCount: 2, min: 35, max: 35, exact: true });
    });

    it('feeds an open job in batches and closes it with the last one', async () => {
      const job = await batch.submitOpen(pages(4, 1));
      const added = await job.addTasks(
        pages(5, 2).map((url) => ({ url })),
        { lastBatch: true },
      );
      expect(added).toMatchObject({
        accepted_tasks: 2,
        job_status: 'closed',
        latest_run: expect.objectContaining({ run_id: expect.any(String) }),
      });
      const run = await job.run.wait({ timeout: 60, pollInterval: 0.5 });
      expect(run.stats).toMatchObject({ total: 3, successful: 3 });
    }, 90_000);

    it('reruns the failed tasks of a run, carrying the rest over', async () => {
      const job = await batch.submitRegular([pages(7, 1)[0], web.url('fail.test', '/e500')]);
      await job.run.wait({ timeout: 60, pollInterval: 0.5 });
      const first = (await job.load()).data.latest_run!.run_id;
      const retry = await job.retryFailed();
      expect(retry.runId).not.toBe(first);
      const done = await job.run.wait({ timeout: 60, pollInterval: 0.5 });
      // The successful task carried over, unbilled; the failed one ran again (and fails again).
      expect(done.runId).toBe(retry.runId);
      expect(done.stats).toMatchObject({ total: 2, successful: 1, failed: 1 });
      const runs = [];
      for await (const one of job.runs()) runs.push(one.runId);
      expect(runs).toHaveLength(2);
    }, 90_000);

    it('takes a CSV input and makes a job of it', async () => {
      const fileInputId = await batch.uploadCsv(
        `url,id\n${pages(9, 2)
          .map((url, i) => `${url},row${i}`)
          .join('\n')}\n`,
        { fields: { url: 'url', external_id: 'id' }, header: true },
      );
      const job = await batch.submitRegular(undefined, fileInputId);
      const run = await job.run.wait({ timeout: 60, pollInterval: 0.5 });
      expect(run.stats).toMatchObject({ total: 2, successful: 2 });
      const ids = [];
      for await (const result of job.run.results()) ids.push(result.external_id);
      expect(ids).toEqual(['row0', 'row1']);
    }, 90_000);

    it('exports a run as one archive and downloads it by its URL', async () => {
      const job = await batch.submitRegular(pages(11, 2));
      const run = await job.run.wait({ timeout: 60, pollInterval: 0.5 });
      // downloadAllResults imports node:fs at call time, which jest's module loader cannot do: it runs
      // in a Node process of its own, as users run it.
      const path = join(scratch, 'export.tar.gz');
      const script = `import { ZenRowsBatchClient } from 'zenrows';
        const client = new ZenRowsBatchClient(process.env.KEY, { baseURL: process.env.BASE });
        await client.downloadAllResults(process.env.JOB, process.env.RUN, process.env.TARGET, { pollInterval: 0.5 });`;
      await execFileAsync(process.execPath, ['--input-type=module', '-e', script], {
        cwd: join(__dirname, '..', '..'),
        env: { ...process.env, KEY: apiKey, BASE: `${platform.gatewayUrl}/v1`, JOB: job.jobId, RUN: run.runId, TARGET: path },
      });
      expect(gunzipSync(readFileSync(path)).includes(Buffer.from('results.jsonl'))).toBe(true);
    }, 90_000);

    it('schedules a job, changes its schedule, pauses and resumes it', async () => {
      const job = await batch.submitScheduled(new Rate(2, 'hour'), pages(13, 1));
      expect((await job.load()).data.schedule).toMatchObject({ rate: { every: 2, unit: 'hour' } });
      expect((await job.schedule.update(new Rate(3, 'hour'))).data.schedule).toMatchObject({ rate: { every: 3, unit: 'hour' } });
      expect((await job.schedule.pause()).data.schedule_state).toBe('paused');
      expect((await job.schedule.resume()).data.schedule_state).toBe('active');
    });

    it('signs webhooks with a rotated key, shows and removes a job webhook, and cancels a staged rotation', async () => {
      const active = await batch.rotateHmacKey();
      receiver.trust(active.kid, active.secret);
      const staged = await batch.rotateHmacKey();
      expect((await batch.listHmacKeys()).candidate?.kid).toBe(staged.kid);
      await batch.cancelHmacRotation();
      const keys = await batch.listHmacKeys();
      expect([keys.active?.kid, keys.candidate]).toEqual([active.kid, undefined]);
      expect(staged.kid).not.toBe(active.kid);
      const tested = await batch.testWebhook({ url: receiver.url('/zenrows'), signature: true });
      expect(tested).toMatchObject({ delivered: true });
      expect(receiver.forEvent(tested.event_id as string)[0]).toMatchObject({ signature: 'ok', kid: active.kid });

      const job = await batch.submitRegular(pages(14, 1));
      await job.setWebhook(receiver.url('/job'), true);
      expect(await job.getWebhook()).toEqual({ url: receiver.url('/job'), signature: true });
      await job.deleteWebhook();
      const missing = await job.getWebhook().catch((error: unknown) => error);
      expect(missing).toBeInstanceOf(ZenRowsBatchError);
      expect((missing as ZenRowsBatchError).status).toBe(404);
    }, 60_000);

    it("deletes a run's results, then the whole job", async () => {
      const job = await batch.submitRegular(pages(15, 1));
      const run = await job.run.wait({ timeout: 60, pollInterval: 0.5 });
      await batch.run(job.jobId, run.runId).delete();
      expect((await batch.getRun(job.jobId, run.runId)).status).toBe('deleted');
      await job.delete();
      const gone = await job.load().catch((error: unknown) => error);
      expect((gone as ZenRowsBatchError).status).toBe(404);
      await waitFor(async () => (await batch.listJobs()).jobs.every((listed) => listed.job_id !== job.jobId), {
        what: 'the job to leave the list',
      });
    }, 90_000);
  });
});
