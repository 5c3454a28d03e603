import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pool } from 'pg';
import { messagingTopology } from '@trawl/contracts';
import { sqlOn, testPool, waitFor } from '@trawl/testing';
import { enqueueWebhookEvent } from '@trawl/webhooks';
import { bigSitePath, expected, FixtureWeb, fixtureHostMap, startFixtureWeb } from '../fixtures/web';
import { createTestTls, WebhookReceiver } from '../fixtures/webhook-receiver';
import { DisposableNats, DisposablePostgres } from '../support/disposable-services';
import { ApiClient, Platform, SERVICES, ServiceName } from '../support/platform';

/**
 * Crawl size: at 3,000 pages, claims and results are in flight every moment, so a kill lands on a
 * COMMIT whose answer is lost (at 400 it seldom did, and a lease of 5 minutes hid behind a pass).
 */
const PAGES = 3_000;
const BATCH_TASKS = 300;
/** The issue's bound: every service resumes its work within 30 s of a dependency coming back. */
const RESUME_MS = 30_000;
const WITH_DATABASE: ServiceName[] = ['gateway', 'crawl-coordinator', 'scheduler', 'webhook-dispatcher'];

/**
 * The cluster's own churn (NATS and Postgres restarts, a CloudNativePG switchover): the suite runs
 * its own nats-server and Postgres, `kill -9`s them by pid in the middle of a crawl, a batch run and
 * webhook deliveries, and starts them again on the same store. Every service stays up, says so on
 * `/readyz` (503 while a dependency is down, 200 after), and finishes the work with nothing lost and
 * nothing twice. Crawl (5 min) and batch task (10 min) leases keep their defaults: nothing may wait for them.
 */
describe('Churn: NATS and Postgres restarts (e2e)', () => {
  const nats = new DisposableNats();
  const postgres = new DisposablePostgres();
  const tls = createTestTls();
  const receiver = new WebhookReceiver(tls);
  let web: FixtureWeb;
  let platform: Platform;
  let api: ApiClient;
  let tenantId: string;
  let pool: Pool;

  beforeAll(async () => {
    await Promise.all([nats.start(), postgres.start(), receiver.start()]);
    web = await startFixtureWeb({ bigSitePages: Math.max(PAGES, BATCH_TASKS + 1) });
    const caFile = tls.writeCa(join(mkdtempSync(join(tmpdir(), 'trawl-churn-')), 'ca.pem'));
    platform = new Platform('churn', {
      hostMap: `${fixtureHostMap()},hooks.test=127.0.0.1`,
      natsUrl: nats.url,
      databaseServerUrl: postgres.serverUrl,
      env: {
        // The attempt timeout stays at its default: an answer later than it is a failed attempt and
        // is sent again (at least once), which on a loaded machine read as a NATS-kill duplicate.
        all: { NODE_EXTRA_CA_CERTS: caFile },
        'fetch-worker': { WORKER_CONCURRENCY: '8', BATCH_CONCURRENCY: '8' },
        'webhook-dispatcher': { WEBHOOK_RETRY_BASE_MS: '300', WEBHOOK_POLL_INTERVAL_MS: '100' },
      },
    });
    await platform.start();
    const tenant = await platform.createTenant({ concurrency: 8, max_active_jobs: 10 });
    tenantId = tenant.tenant_id;
    api = platform.client(tenant.api_key);
    pool = testPool(platform.databaseUrl, 2);
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await platform?.stop();
    await receiver.stop();
    await web?.close();
    await nats.stop();
    await postgres.stop();
  }, 60_000);

  /** Every service of `services` answers /readyz with `status`, and `check` (if given) is `ok`. */
  async function waitForReadiness(services: readonly ServiceName[], status: number, check?: { name: string; ok: boolean }) {
    await waitFor(
      async () => {
        const answers = await Promise.all(services.map((s) => platform.readiness(s)));
        return answers.every((a) => a.status === status && (!check || a.body?.checks?.[check.name] === check.ok));
      },
      { timeoutMs: RESUME_MS, intervalMs: 200, what: `/readyz ${status} on ${services.join(', ')}` },
    );
  }

  function expectAllAlive() {
    for (const service of SERVICES) expect(isAlive(platform.pid(service))).toBe(true);
  }

  /**
   * `kill -9` of a dependency: `down` answer /readyz 503 (with `check` failing, if given) while it is
   * away and no service exits; `whileDown` runs then; it stays away `downForMs` in all. Started
   * again, every service answers 200.
   * Returns when the dependency was back, the moment the 30 s bound counts from.
   */
  async function killAndRestart(
    dependency: DisposableNats | DisposablePostgres,
    down: readonly ServiceName[],
    check?: { name: string; ok: false },
    whileDown?: () => Promise<void>,
    downForMs = 0,
  ): Promise<number> {
    const killedAt = Date.now();
    await dependency.kill();
    await waitForReadiness(down, 503, check);
    expectAllAlive();
    await whileDown?.();
    // An outage of a set length (a restart that takes a while), not a wait for an event.
    const left = killedAt + downForMs - Date.now();
    if (left > 0) await new Promise((resolve) => setTimeout(resolve, left));
    await dependency.start();
    const restartedAt = Date.now();
    await waitForReadiness(SERVICES, 200);
    expectAllAlive();
    return restartedAt;
  }

  async function startCrawlAndWaitFor(fetched: number): Promise<string> {
    const started = await api.startCrawl({ url: web.url('big.test', '/'), max_items: 100_000, max_pages: 100_000 });
    expect(started.status).toBe(202);
    const id = started.body.crawl_id as string;
    await waitFor(async () => (await api.getCrawl(id, '?limit=1')).body.coverage.pages_fetched >= fetched, {
      timeoutMs: 60_000,
      intervalMs: 25,
      what: `${fetched} pages fetched`,
    });
    return id;
  }

  async function expectExactCrawl(id: string, ended: any) {
    const truth = expected.big.allItems(web.port, PAGES);
    const urls = (await api.readAllResults(id)).map((r) => r.url);
    expect(urls).toHaveLength(truth.length);
    expect(new Set(urls)).toEqual(new Set(truth));
    expect(ended).toMatchObject({ status: 'completed', coverage: { items_found: truth.length, pages_fetched: PAGES, pages_failed: 0 } });
  }

  it('finishes a crawl exactly, within 30 s of NATS coming back, after kill -9 of NATS in the middle of it', async () => {
    const id = await startCrawlAndWaitFor(PAGES / 4);
    const restartedAt = await killAndRestart(nats, SERVICES, { name: 'nats', ok: false });
    const ended = await api.waitUntilEnded(id, RESUME_MS);
    // The stall is bounded by the reconnect, not by the 5-minute lease of the pages in flight.
    expect(Date.now() - restartedAt).toBeLessThan(RESUME_MS);
    await expectExactCrawl(id, ended);
  }, 120_000);

  it('finishes a crawl exactly after kill -9 of Postgres in the middle of it; no service exits', async () => {
    const id = await startCrawlAndWaitFor(PAGES / 3);
    const restartedAt = await killAndRestart(
      postgres,
      WITH_DATABASE,
      undefined,
      async () => {
        // Every service names its checks alike; the fetch worker holds no database connection.
        expect((await platform.readiness('gateway')).body.checks).toMatchObject({ postgres: false });
        expect((await platform.readiness('crawl-coordinator')).body.checks).toMatchObject({ postgres: false });
        expect((await platform.readiness('fetch-worker')).status).toBe(200);
      },
      5_000,
    );
    const ended = await api.waitUntilEnded(id, RESUME_MS);
    expect(Date.now() - restartedAt).toBeLessThan(RESUME_MS);
    expectAllAlive();
    await expectExactCrawl(id, ended);
  }, 120_000);

  /** A closed job of BATCH_TASKS pages of big.test, once `done` of its tasks are completed. */
  async function startBatchAndWaitFor(done: number): Promise<string> {
    const tasks = Array.from({ length: BATCH_TASKS }, (_, i) => ({
      url: web.url('big.test', bigSitePath(i + 1)),
      external_id: `page-${i + 1}`,
    }));
    const created = await api.request('POST', '/v1/jobs', { type: 'regular', status: 'closed', service_params: {}, tasks });
    expect(created.status).toBe(201);
    const jobId = created.body.job_id as string;
    await waitFor(async () => (await api.request('GET', `/v1/jobs/${jobId}`)).body.latest_run?.stats?.completed >= done, {
      timeoutMs: 60_000,
      intervalMs: 25,
      what: `${done} tasks done`,
    });
    return jobId;
  }

  /** The run ends within RESUME_MS of `restartedAt`, completed, with one result and one ledger row per task. */
  async function expectExactBatchWithin(jobId: string, restartedAt: number) {
    const ended = await waitFor(
      async () => {
        const job = await api.request('GET', `/v1/jobs/${jobId}`);
        return ['completed', 'failed', 'stopped'].includes(job.body.latest_run?.status) && job.body;
      },
      { timeoutMs: RESUME_MS, intervalMs: 100, what: 'the run to end' },
    );
    // The stall is bounded by the reconnect, not by the 10-minute lease of the tasks in flight.
    expect(Date.now() - restartedAt).toBeLessThan(RESUME_MS);
    expect(ended.latest_run.status).toBe('completed');
    expect(ended.latest_run.stats).toMatchObject({
      total: BATCH_TASKS,
      completed: BATCH_TASKS,
      successful: BATCH_TASKS,
      failed: 0,
      spend: { credits: BATCH_TASKS },
    });
    const results: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await api.request('GET', `/v1/jobs/${jobId}/results${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`);
      results.push(...page.body.results);
      cursor = page.body.next_cursor ?? null;
    } while (cursor);
    expect(results).toHaveLength(BATCH_TASKS);
    expect(new Set(results.map((r) => r.external_id))).toEqual(new Set(Array.from({ length: BATCH_TASKS }, (_, i) => `page-${i + 1}`)));
    expect(results.every((r) => r.status === 'successful' && r.credits === 1)).toBe(true);
    // Billed once per task: one ledger row per task of the run, one credit each.
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n, count(DISTINCT l.ref)::int AS refs, sum(l.credits)::int AS credits
         FROM credit_ledger l JOIN jobs j ON l.ref LIKE 'batch:' || j.latest_run_id || ':%' WHERE j.id = $1`,
      [jobId],
    );
    expect(rows[0]).toEqual({ n: BATCH_TASKS, refs: BATCH_TASKS, credits: BATCH_TASKS });
  }

  it('completes a batch run exactly, within 30 s of NATS coming back, after kill -9 of NATS in the middle of it', async () => {
    const jobId = await startBatchAndWaitFor(BATCH_TASKS / 3);
    const restartedAt = await killAndRestart(nats, SERVICES, { name: 'nats', ok: false }, async () => {
      // The kill landed mid-run: the gateway still reads the run from Postgres, unfinished.
      const during = (await api.request('GET', `/v1/jobs/${jobId}`)).body.latest_run;
      expect(during.status).toBe('running');
      expect(during.stats.completed).toBeLessThan(BATCH_TASKS);
    });
    await expectExactBatchWithin(jobId, restartedAt);
  }, 120_000);

  it('completes a batch run exactly, within 30 s of Postgres coming back, after kill -9 of Postgres in the middle of it', async () => {
    const jobId = await startBatchAndWaitFor(BATCH_TASKS / 3);
    const restartedAt = await killAndRestart(postgres, ['scheduler'], { name: 'postgres', ok: false });
    await expectExactBatchWithin(jobId, restartedAt);
  }, 120_000);

  describe('webhook deliveries', () => {
    async function enqueueEvents(count: number): Promise<string[]> {
      const sql = sqlOn(pool);
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        ids.push(
          await enqueueWebhookEvent(sql, messagingTopology(platform.prefix), {
            event_type: 'run.completed',
            occurred_at: new Date().toISOString(),
            tenant_id: tenantId,
            job_id: randomUUID(),
            run_id: randomUUID(),
            run_sequence: 1,
            stats: { total: 1, completed: 1, successful: 1, failed: 0, spend: { credits: 1, cost: 0.0001 } },
            webhook: { url: receiver.url('/churn'), signature: false },
          }),
        );
      }
      return ids;
    }

    async function expectEachDeliveredOnce(eventIds: string[]) {
      await waitFor(() => eventIds.every((id) => receiver.forEvent(id).some((r) => r.answered === 200)), {
        timeoutMs: RESUME_MS,
        intervalMs: 100,
        what: `${eventIds.length} webhooks delivered`,
      });
      for (const id of eventIds) expect(receiver.forEvent(id).map((r) => r.answered)).toEqual([200]);
    }

    it('delivers every event once across kill -9 of NATS', async () => {
      const before = await enqueueEvents(20);
      await waitFor(() => before.some((id) => receiver.forEvent(id).length > 0), { timeoutMs: 15_000, what: 'first deliveries' });
      await nats.kill();
      await waitForReadiness(['webhook-dispatcher', 'scheduler'], 503, { name: 'nats', ok: false });
      // Run ends keep being written while NATS is away; the outbox holds them.
      const during = await enqueueEvents(10);
      await nats.start();
      await waitForReadiness(SERVICES, 200);
      const after = await enqueueEvents(10);
      await expectEachDeliveredOnce([...before, ...during, ...after]);
    }, 90_000);

    it('delivers every event once across kill -9 of Postgres', async () => {
      const before = await enqueueEvents(30);
      await waitFor(() => before.some((id) => receiver.forEvent(id).length > 0), { timeoutMs: 15_000, what: 'first deliveries' });
      await postgres.kill();
      await waitForReadiness(['webhook-dispatcher'], 503, { name: 'postgres', ok: false });
      expectAllAlive();
      await postgres.start();
      await waitForReadiness(SERVICES, 200);
      const after = await enqueueEvents(10);
      await expectEachDeliveredOnce([...before, ...after]);
    }, 90_000);
  });
});

function isAlive(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
