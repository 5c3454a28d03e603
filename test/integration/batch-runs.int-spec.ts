import { INestApplicationContext } from '@nestjs/common';
import pino from 'pino';
import { messagingTopology } from '@trawl/contracts';
import { publishJson } from '@trawl/messaging';
import { createMigratedDatabase, TestDatabase, uniqueSuffix, waitFor } from '@trawl/testing';
import { startWorkerApp } from '../../apps/fetch-worker/test/support/worker-app';
import { RunsRuntime } from '../../apps/scheduler/src/runs/runs.runtime';
import {
  createJobWithRun,
  createTenant,
  removeBatchStreams,
  RunsInstance,
  runRow,
  runsSettings,
  startRunsInstance,
  taskStates,
} from '../../apps/scheduler/test/support/runs-harness';
import { JobRunsRepository } from '../../apps/gateway/src/batch/job-runs.repository';
import { RunStopNotices } from '../../apps/gateway/src/batch/run-stop-notices';
import type { GatewayConfig } from '../../apps/gateway/src/config';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../fixtures/web';

/** A batch run end to end inside one process: scheduler runs part, a real fetch worker, the fixture web. */
describe(RunsRuntime.name, () => {
  let database: TestDatabase;
  let web: FixtureWeb;
  let worker: INestApplicationContext | undefined;
  let scheduler: RunsInstance;
  const prefix = `br${uniqueSuffix()}`;
  const topology = messagingTopology(prefix);

  beforeAll(async () => {
    database = await createMigratedDatabase();
    web = await startFixtureWeb({ bigSitePages: 300 });
    // Tasks may take 45 s: the stopped-run tests hold worker slots until they let them go.
    scheduler = await startRunsInstance(database.url, runsSettings(topology, { taskTimeoutMs: 45_000 }));
    worker = await startWorkerApp({
      NATS_PREFIX: prefix,
      EGRESS_HOST_MAP: fixtureHostMap(),
      BROWSERS: '0',
      BATCH_CONCURRENCY: '16',
      SHUTDOWN_TIMEOUT_MS: '4000',
    });
    await scheduler.runtime.start();
  }, 60_000);

  afterAll(async () => {
    await scheduler?.close();
    await worker?.close();
    await web?.close();
    await removeBatchStreams(prefix);
    await database?.drop();
  });

  it('completes a 200-task run with one result per task, exact stats, ledger rows and one run.completed event', async () => {
    const concurrency = 8;
    const tenantId = await createTenant(scheduler.db, concurrency);
    // 199 pages and one 404 (`/p/0`): a failed task, billed as the Fetch API bills a 404.
    const urls = [...Array.from({ length: 199 }, (_, i) => web.url('big.test', `/p/${i + 1}`)), web.url('big.test', '/p/0')];
    const { jobId, runId } = await createJobWithRun(scheduler.db, tenantId, urls, {
      webhook: { url: 'https://hooks.test/runs', signature: true },
    });
    let mostInFlight = 0;
    const done = await waitFor(
      async () => {
        const [row] = await scheduler.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM run_tasks WHERE run_id = $1 AND state = 'dispatched'`,
          [runId],
        );
        mostInFlight = Math.max(mostInFlight, row.n);
        const run = await runRow(scheduler.db, runId);
        return run.status === 'completed' && run;
      },
      { timeoutMs: 60_000, intervalMs: 20, what: 'the run completed' },
    );
    expect(mostInFlight).toBeGreaterThan(0);
    expect(mostInFlight).toBeLessThanOrEqual(concurrency);
    expect(done).toMatchObject({ total: 200, successful: 199, failed: 1, credits: 200 });
    expect(done.cost).toBeCloseTo(0.02, 6);
    expect(done.started_at).not.toBeNull();
    expect(done.finished_at).not.toBeNull();
    expect(await taskStates(scheduler.db, runId)).toEqual({ succeeded: 199, failed: 1 });

    const tasks = await scheduler.db.query<{
      seq: number;
      status_code: number;
      output_format: string | null;
      body: Buffer | null;
      tier: string | null;
      credits: number;
      error_code: string | null;
    }>(`SELECT seq, status_code, output_format, body, tier, credits, error_code FROM run_tasks WHERE run_id = $1 ORDER BY seq`, [runId]);
    expect(tasks[0]).toMatchObject({ status_code: 200, output_format: 'html', tier: 'basic', credits: 1, error_code: null });
    expect(tasks[0].body?.toString()).toContain('/p/11');
    expect(tasks[199]).toMatchObject({ status_code: 404, output_format: null, tier: 'basic', credits: 1, error_code: 'RESP002' });
    for (let page = 1; page <= 199; page++) expect(web.hits('big.test', `/p/${page}`)).toBeGreaterThanOrEqual(1);

    const ledger = await scheduler.db.query<{ ref: string; credits: number; product: string; tier: string; cost_usd: number }>(
      `SELECT ref, credits, product, tier, cost_usd::float8 AS cost_usd FROM credit_ledger WHERE tenant_id = $1 ORDER BY id`,
      [tenantId],
    );
    expect(ledger).toHaveLength(200);
    expect(new Set(ledger.map((l) => l.ref))).toEqual(new Set(Array.from({ length: 200 }, (_, i) => `batch:${runId}:${i + 1}`)));
    // Each row keeps its dollars at the scheduler's price (creditPriceUsd 0.0001).
    expect(ledger.every((l) => l.credits === 1 && l.product === 'batch' && l.tier === 'basic' && l.cost_usd === 0.0001)).toBe(true);
    const [tenant] = await scheduler.db.query<{ credits_used: string }>(`SELECT credits_used FROM tenants WHERE id = $1`, [tenantId]);
    expect(Number(tenant.credits_used)).toBe(200);

    const events = await scheduler.db.query<{ subject: string; payload: Record<string, unknown> }>(
      `SELECT subject, payload FROM outbox WHERE payload->>'run_id' = $1`,
      [runId],
    );
    expect(events).toHaveLength(1);
    expect(events[0].subject).toBe(topology.subjects.event('run.completed'));
    expect(events[0].payload).toMatchObject({
      event_type: 'run.completed',
      job_id: jobId,
      run_sequence: 1,
      stats: { total: 200, completed: 200, successful: 199, failed: 1, spend: { credits: 200 } },
      webhook: { url: 'https://hooks.test/runs', signature: true },
    });
    // The scheduler's relay publishes it to the events stream, where the webhook dispatcher reads it.
    await waitFor(
      async () => {
        const [row] = await scheduler.db.query<{ published_at: Date | null }>(
          `SELECT published_at FROM outbox WHERE payload->>'run_id' = $1`,
          [runId],
        );
        return row.published_at !== null;
      },
      { what: 'the run event relayed' },
    );

    // A copy of a result arriving after the run completed changes nothing.
    await publishJson(scheduler.messaging.js, topology.subjects.batchResults, {
      v: 1,
      results: [
        {
          v: 1,
          run_id: runId,
          seq: 1,
          attempt: 1,
          status_code: 500,
          content_type: 'text/plain',
          billed_tier: 'premium',
          credits: 10,
          body_base64: 'eA==',
        },
      ],
    });
    await waitFor(
      async () => {
        const info = await scheduler.messaging.jsm.consumers.info(topology.streams.batchResults, topology.consumers.batchSchedulers);
        return info.num_pending === 0 && info.num_ack_pending === 0;
      },
      { what: 'the late result taken in' },
    );
    expect(await runRow(scheduler.db, runId)).toMatchObject({ status: 'completed', successful: 199, failed: 1, credits: 200 });
    expect(await scheduler.db.query(`SELECT 1 FROM credit_ledger WHERE tenant_id = $1`, [tenantId])).toHaveLength(200);
    expect(await scheduler.db.query(`SELECT 1 FROM outbox WHERE payload->>'run_id' = $1`, [runId])).toHaveLength(1);
  }, 90_000);

  it('stores a body larger than a NATS message whole, through the bodies stream', async () => {
    const tenantId = await createTenant(scheduler.db, 2);
    const { runId } = await createJobWithRun(scheduler.db, tenantId, [web.url('echo.test', '/big?kib=2000')]);
    await waitFor(async () => (await runRow(scheduler.db, runId)).status === 'completed', { timeoutMs: 30_000, what: 'the run completed' });
    const [task] = await scheduler.db.query<{ state: string; body: Buffer }>(`SELECT state, body FROM run_tasks WHERE run_id = $1`, [
      runId,
    ]);
    expect(task.state).toBe('succeeded');
    expect(task.body.length).toBeGreaterThan(2000 * 1024);
    expect(task.body.toString().endsWith('</body></html>\n')).toBe(true);
    const bodies = await scheduler.messaging.jsm.streams.info(topology.streams.batchBodies);
    expect(bodies.state.messages).toBe(0);
  }, 60_000);

  describe('a stopped run', () => {
    const WORKER_SLOTS = 16;
    it.each([
      ['the gateway tells the workers at the stop', true],
      ['the gateway notice is lost and the scheduler repeats it from Postgres', false],
    ])(
      'fetches and bills none of its tasks still queued for workers when %s',
      async (_case, gatewayNotice) => {
        const tenantId = await createTenant(scheduler.db, 40);
        const tag = uniqueSuffix();
        // The first tasks fill every worker slot until the test lets them answer; the rest wait in the work queue.
        const slow = Array.from({ length: WORKER_SLOTS }, (_, i) => web.url('slow.test', `/slow/${i + 1}?hold=${tag}`));
        const queued = Array.from({ length: 24 }, (_, i) => `/p/${i + 1}?t=${tag}`);
        const { jobId, runId } = await createJobWithRun(scheduler.db, tenantId, [
          ...slow,
          ...queued.map((path) => web.url('big.test', path)),
        ]);
        // What was seen last, for a failure's message: which of the two conditions did not hold.
        let seen = '';
        await waitFor(
          async () => {
            const states = await taskStates(scheduler.db, runId);
            const slowHits = slow.map((url) => web.hits('slow.test', new URL(url).pathname + new URL(url).search));
            seen = `task states ${JSON.stringify(states)}, hits of the slow pages ${slowHits.join(',')}`;
            return states.dispatched === 40 && slowHits.every((hits) => hits === 1);
          },
          { timeoutMs: 30_000, intervalMs: 10, what: 'every task dispatched and every worker slot busy' },
        ).catch(async (error: Error) => {
          // Its slow pages would hold the worker's slots until their timeout, failing the next case too.
          web.release(tag);
          const work = await scheduler.messaging.jsm.consumers.info(topology.streams.batchWork, topology.consumers.batchWorkers);
          const queue = `work queue: ${work.num_pending} pending, ${work.num_ack_pending} delivered unacked, ${work.num_waiting} pulls waiting`;
          throw new Error(`${error.message}; ${seen}; ${queue}`);
        });
        expect(queued.map((path) => web.hits('big.test', path))).toEqual(queued.map(() => 0));

        // The stop notice as the workers get it (core NATS): from the gateway, or repeated by the scheduler.
        const notices = scheduler.messaging.nc.subscribe(topology.subjects.batchRunStopped);
        const noticed = (async () => {
          for await (const msg of notices) if (msg.string().includes(runId)) return;
        })();
        const stopped = await new JobRunsRepository(scheduler.db).transition(tenantId, jobId, 'stop');
        expect(stopped?.status).toBe('stopped');
        if (gatewayNotice) {
          new RunStopNotices(scheduler.messaging, pino({ level: 'silent' }), { NATS_PREFIX: prefix } as GatewayConfig).stopped(runId);
        }
        await noticed;
        notices.unsubscribe();
        // Only now do the slow pages answer and free their slots to the queued tasks.
        web.release(tag);

        await waitFor(async () => (await taskStates(scheduler.db, runId)).dispatched === undefined, {
          timeoutMs: 30_000,
          what: 'every claim of the stopped run answered or handed back',
        });
        // Started before the stop: recorded and billed. Still queued at the stop: never fetched, not counted.
        expect(queued.map((path) => web.hits('big.test', path))).toEqual(queued.map(() => 0));
        expect(await taskStates(scheduler.db, runId)).toEqual({ succeeded: WORKER_SLOTS, queued: 24 });
        expect(await runRow(scheduler.db, runId)).toMatchObject({
          status: 'stopped',
          total: 40,
          successful: WORKER_SLOTS,
          failed: 0,
          credits: WORKER_SLOTS,
        });
        const ledger = await scheduler.db.query<{ ref: string }>(`SELECT ref FROM credit_ledger WHERE tenant_id = $1`, [tenantId]);
        expect(new Set(ledger.map((l) => l.ref))).toEqual(
          new Set(Array.from({ length: WORKER_SLOTS }, (_, i) => `batch:${runId}:${i + 1}`)),
        );
        // The scheduler never dispatches the stopped run again.
        const [attempts] = await scheduler.db.query<{ max: number }>(`SELECT max(attempt)::int AS max FROM run_tasks WHERE run_id = $1`, [
          runId,
        ]);
        expect(attempts.max).toBe(1);
      },
      90_000,
    );
  });
});
