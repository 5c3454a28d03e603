import { BatchTaskV1, batchWorkMessageV1, messagingTopology, PAGES_HEADER } from '@trawl/contracts';
import { CommitOutcomeUnknownError } from '@trawl/persistence';
import { CommitReplyCutter, createMigratedDatabase, TestDatabase, uniqueSuffix, waitFor } from '@trawl/testing';
import { RunDispatcherService } from '../src/runs/run-dispatcher.service';
import type { TaskResult } from '../src/runs/task-result';
import {
  createJobWithRun,
  createTenant,
  removeBatchStreams,
  RunsInstance,
  runRow,
  runsSettings,
  startRunsInstance,
  taskStates,
} from './support/runs-harness';

/** A worker's successful answer, as the intake takes it. */
function succeeded(runId: string, seq: number, attempt: number, body = 'ok'): TaskResult {
  return {
    runId,
    seq,
    attempt,
    state: 'succeeded',
    statusCode: 200,
    contentType: 'text/html; charset=utf-8',
    outputFormat: 'html',
    body: Buffer.from(body),
    tier: 'basic',
    credits: 1,
    errorCode: null,
    errorDetail: null,
    cache: null,
    changeStatus: null,
  };
}

const urls = (n: number) => Array.from({ length: n }, (_, i) => `http://big.test:8090/p/${i + 1}`);

/** Dispatch, leases and run states with no worker: tasks stay in the work queue, results are made up. */
describe(RunDispatcherService.name, () => {
  let database: TestDatabase;
  const prefix = `rd${uniqueSuffix()}`;
  const topology = messagingTopology(prefix);
  let a: RunsInstance;
  let b: RunsInstance;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    a = await startRunsInstance(database.url, runsSettings(topology));
    b = await startRunsInstance(database.url, runsSettings(topology));
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await removeBatchStreams(prefix);
    await database?.drop();
  });

  /** Messages of a run published to the work queue, in stream order: the tasks each carries, and its count header. */
  async function publishedMessages(runId: string): Promise<{ tasks: BatchTaskV1[]; header: string | undefined }[]> {
    const info = await a.messaging.jsm.streams.info(topology.streams.batchWork);
    const messages: { tasks: BatchTaskV1[]; header: string | undefined }[] = [];
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const stored = await a.messaging.jsm.streams.getMessage(topology.streams.batchWork, { seq }).catch(() => null);
      if (!stored) continue;
      const message = batchWorkMessageV1.parse(stored.json());
      const tasks = 'tasks' in message ? message.tasks : [message];
      if (tasks[0].run_id === runId) messages.push({ tasks, header: stored.header?.get(PAGES_HEADER) || undefined });
    }
    return messages;
  }

  /** Tasks of a run published to the work queue, in stream order. */
  async function published(runId: string): Promise<BatchTaskV1[]> {
    return (await publishedMessages(runId)).flatMap((message) => message.tasks);
  }

  it('moves a queued run to running at its first dispatch and never passes the tenant’s concurrency', async () => {
    const tenantId = await createTenant(a.db, 5);
    const { runId } = await createJobWithRun(a.db, tenantId, urls(20), { serviceParams: { response_type: 'markdown' } });
    // Held back by the tenant's concurrency: another round at once would find no room.
    expect(await a.dispatcher.dispatchRound()).toEqual({ claimed: 5, more: false });
    expect((await a.dispatcher.dispatchRound()).claimed).toBe(0);
    expect(await taskStates(a.db, runId)).toEqual({ dispatched: 5, queued: 15 });
    const run = await runRow(a.db, runId);
    expect(run.status).toBe('running');
    expect(run.started_at).not.toBeNull();
    const tasks = await published(runId);
    expect(tasks.map((t) => [t.seq, t.attempt])).toEqual([1, 2, 3, 4, 5].map((seq) => [seq, 1]));
    // A round's tasks of a run travel together, the message saying how many it carries.
    expect((await publishedMessages(runId)).map((m) => m.header)).toEqual(['5']);
    expect(tasks[0]).toMatchObject({
      tenant_id: tenantId,
      url: 'http://big.test:8090/p/1',
      method: 'GET',
      options: { response_type: 'markdown' },
    });
  });

  it('sends a run’s claimed tasks up to BATCH_TASK_GROUP_SIZE to a message, the last one alone in the single form', async () => {
    const tenantId = await createTenant(a.db, 17);
    const { runId } = await createJobWithRun(a.db, tenantId, urls(17));
    expect((await a.dispatcher.dispatchRound()).claimed).toBe(17);
    const messages = await publishedMessages(runId);
    expect(messages.map((m) => [m.header, m.tasks.map((t) => t.seq)])).toEqual([
      ['8', [1, 2, 3, 4, 5, 6, 7, 8]],
      ['8', [9, 10, 11, 12, 13, 14, 15, 16]],
      [undefined, [17]],
    ]);
  });

  it('dispatches nothing more for a stopped run, records its late results, and leaves it stopped', async () => {
    const tenantId = await createTenant(a.db, 5);
    const { runId } = await createJobWithRun(a.db, tenantId, urls(20));
    expect((await a.dispatcher.dispatchRound()).claimed).toBe(5);
    // The gateway's stop.
    await a.db.query(`UPDATE job_runs SET status = 'stopped', finished_at = now() WHERE id = $1`, [runId]);
    const outcome = await a.results.apply([1, 2, 3, 4, 5].map((seq) => succeeded(runId, seq, 1)));
    expect(outcome).toMatchObject({ applied: 5, ignored: 0, completed: [] });
    expect((await a.dispatcher.dispatchRound()).claimed).toBe(0);
    expect(await taskStates(a.db, runId)).toEqual({ succeeded: 5, queued: 15 });
    expect(await runRow(a.db, runId)).toMatchObject({ status: 'stopped', successful: 5, failed: 0, credits: 5 });
  });

  it('dispatches nothing for a paused run until it is resumed', async () => {
    const tenantId = await createTenant(a.db, 5);
    const { runId } = await createJobWithRun(a.db, tenantId, urls(8));
    await a.db.query(`UPDATE job_runs SET status = 'paused' WHERE id = $1`, [runId]);
    expect((await a.dispatcher.dispatchRound()).claimed).toBe(0);
    expect(await taskStates(a.db, runId)).toEqual({ queued: 8 });
    await a.db.query(`UPDATE job_runs SET status = 'queued' WHERE id = $1`, [runId]);
    expect((await a.dispatcher.dispatchRound()).claimed).toBe(5);
  });

  it('ignores a repeated or late result: the row, the counters and the ledger keep the first', async () => {
    const tenantId = await createTenant(a.db, 5);
    const { runId } = await createJobWithRun(a.db, tenantId, urls(2));
    await a.dispatcher.dispatchRound();
    expect(await a.results.apply([succeeded(runId, 1, 1, 'first')])).toMatchObject({ applied: 1, ignored: 0 });
    // The same claim again, an older attempt, and a claim that was never made.
    const again = await a.results.apply([succeeded(runId, 1, 1, 'second'), succeeded(runId, 2, 0), succeeded(runId, 2, 7)]);
    expect(again).toMatchObject({ applied: 0, ignored: 3 });
    const [row] = await a.db.query<{ body: Buffer }>(`SELECT body FROM run_tasks WHERE run_id = $1 AND seq = 1`, [runId]);
    expect(row.body.toString()).toBe('first');
    expect(await runRow(a.db, runId)).toMatchObject({ status: 'running', successful: 1, failed: 0, credits: 1 });
    const ledger = await a.db.query(`SELECT 1 FROM credit_ledger WHERE tenant_id = $1`, [tenantId]);
    expect(ledger).toHaveLength(1);
    // The task's history has the one attempt that counted, from its dispatch to its answer.
    const attempts = await a.db.query<{ seq: number; attempt: number; outcome: string; credits: number; ordered: boolean }>(
      `SELECT seq, attempt, outcome, credits, started_at <= ended_at AS ordered FROM run_task_attempts WHERE run_id = $1 ORDER BY seq, attempt`,
      [runId],
    );
    expect(attempts).toEqual([{ seq: 1, attempt: 1, outcome: 'succeeded', credits: 1, ordered: true }]);
  });

  it('bills a failed task whose answer the Fetch API bills (a 404), and not one it does not', async () => {
    const tenantId = await createTenant(a.db, 5);
    const { runId } = await createJobWithRun(a.db, tenantId, urls(2));
    await a.dispatcher.dispatchRound();
    const failed = (seq: number, errorCode: string, statusCode: number, billed: boolean): TaskResult => ({
      ...succeeded(runId, seq, 1),
      state: 'failed',
      statusCode,
      outputFormat: null,
      body: null,
      tier: billed ? 'basic' : null,
      credits: billed ? 1 : 0,
      errorCode,
      errorDetail: 'from the worker',
    });
    expect(await a.results.apply([failed(1, 'RESP002', 404, true), failed(2, 'RESP001', 500, false)])).toMatchObject({ applied: 2 });
    // Dollars at the scheduler's price (creditPriceUsd 0.0001), for the billed task only.
    expect(await runRow(a.db, runId)).toMatchObject({ status: 'completed', successful: 0, failed: 2, credits: 1, cost: 0.0001 });
    const ledger = await a.db.query<{ ref: string; credits: number }>(`SELECT ref, credits FROM credit_ledger WHERE tenant_id = $1`, [
      tenantId,
    ]);
    expect(ledger).toEqual([{ ref: `batch:${runId}:1`, credits: 1 }]);
  });

  it('dispatches an expired claim again as a new attempt, and fails it with ERR0001 after the third', async () => {
    const tenantId = await createTenant(a.db, 5);
    const { runId } = await createJobWithRun(a.db, tenantId, urls(1));
    await a.dispatcher.dispatchRound();
    // The message was lost: the lease runs out.
    await a.db.query(`UPDATE run_tasks SET lease_until = now() - interval '1 second' WHERE run_id = $1`, [runId]);
    await a.reconciler.reconcileOnce();
    expect(await taskStates(a.db, runId)).toEqual({ queued: 1 });
    expect((await a.dispatcher.dispatchRound()).claimed).toBe(1);
    expect((await published(runId)).map((t) => t.attempt)).toEqual([1, 2]);
    // The first attempt's answer comes late: ignored.
    expect(await a.results.apply([succeeded(runId, 1, 1)])).toMatchObject({ ignored: 1 });

    await a.db.query(`UPDATE run_tasks SET attempt = 3, lease_until = now() - interval '1 second' WHERE run_id = $1`, [runId]);
    await a.reconciler.reconcileOnce();
    const [task] = await a.db.query<{ state: string; error_code: string }>(`SELECT state, error_code FROM run_tasks WHERE run_id = $1`, [
      runId,
    ]);
    expect(task).toEqual({ state: 'failed', error_code: 'ERR0001' });
    expect(await runRow(a.db, runId)).toMatchObject({ status: 'completed', successful: 0, failed: 1, credits: 0 });
    // The history keeps the lease that ran out and the attempt given up on (the test skipped to the third).
    const attempts = await a.db.query<{ attempt: number; outcome: string; error_code: string; started: boolean }>(
      `SELECT attempt, outcome, error_code, started_at IS NOT NULL AS started FROM run_task_attempts WHERE run_id = $1 ORDER BY attempt`,
      [runId],
    );
    expect(attempts).toEqual([
      { attempt: 1, outcome: 'lease_expired', error_code: 'task_lease_expired', started: true },
      { attempt: 3, outcome: 'failed', error_code: 'ERR0001', started: true },
    ]);
  });

  it('publishes the tasks of a claim whose COMMIT lost its answer; a claim that did not commit does not shadow the next', async () => {
    const cutter = await CommitReplyCutter.start(database.url);
    const relayed = await startRunsInstance(cutter.urlFor(database.url), runsSettings(topology));
    try {
      const tenantId = await createTenant(a.db, 5);
      const { runId } = await createJobWithRun(a.db, tenantId, urls(2));
      cutter.cutNextCommitReplies(1);
      // Postgres committed the claim, the dispatcher never heard: without publishing, both tasks
      // would sit dispatched until their 10-minute lease ran out.
      expect((await relayed.dispatcher.dispatchRound()).claimed).toBe(2);
      expect(cutter.cut).toBe(1);
      expect(await taskStates(a.db, runId)).toEqual({ dispatched: 2 });
      expect((await published(runId)).map((t) => [t.seq, t.attempt])).toEqual([
        [1, 1],
        [2, 1],
      ]);

      // Had the crash lost the claim instead, the tasks are queued again at attempt 0; the next
      // claim (attempt 1 again) is published, not dropped as a repeat of the first.
      await a.db.query(`UPDATE run_tasks SET state = 'queued', attempt = 0, lease_until = NULL WHERE run_id = $1`, [runId]);
      expect((await a.dispatcher.dispatchRound()).claimed).toBe(2);
      expect((await published(runId)).map((t) => [t.seq, t.attempt])).toEqual([
        [1, 1],
        [2, 1],
        [1, 1],
        [2, 1],
      ]);
    } finally {
      await relayed.close();
      await cutter.close();
    }
  });

  it('never dispatches a task twice at once from two dispatchers, nor passes the tenant’s concurrency', async () => {
    const tenantId = await createTenant(a.db, 150);
    const { runId } = await createJobWithRun(a.db, tenantId, urls(400));
    const rounds = (instance: RunsInstance) => Promise.all(Array.from({ length: 6 }, () => instance.dispatcher.dispatchRound()));
    await Promise.all([rounds(a), rounds(b), rounds(a), rounds(b)]);
    expect(await taskStates(a.db, runId)).toEqual({ dispatched: 150, queued: 250 });
    const tasks = await published(runId);
    expect(tasks).toHaveLength(150);
    expect(new Set(tasks.map((t) => t.seq)).size).toBe(150);
    expect(tasks.every((t) => t.attempt === 1)).toBe(true);
  });

  it('fails the runs of a tenant whose credits are spent, with run.failed when the job has a webhook', async () => {
    const tenantId = await createTenant(a.db, 5, { creditsLimit: 0 });
    const { runId } = await createJobWithRun(a.db, tenantId, urls(3), { webhook: { url: 'https://hooks.test/run', signature: false } });
    expect((await a.dispatcher.dispatchRound()).claimed).toBe(0);
    const [run] = await a.db.query<{ status: string; failure_reason: string }>(
      `SELECT status, failure_reason FROM job_runs WHERE id = $1`,
      [runId],
    );
    expect(run).toEqual({ status: 'failed', failure_reason: 'insufficient_credits' });
    const events = await a.db.query<{ subject: string; payload: { failure_reason: string } }>(
      `SELECT subject, payload FROM outbox WHERE payload->>'run_id' = $1`,
      [runId],
    );
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      subject: topology.subjects.event('run.failed'),
      payload: { failure_reason: 'insufficient_credits' },
    });
  });

  describe('the intake', () => {
    it('claims the next tasks of a tenant’s only run for the slots its results freed, in its own transaction, and publishes them', async () => {
      const tenantId = await createTenant(a.db, 5);
      const { runId } = await createJobWithRun(a.db, tenantId, urls(12));
      await a.dispatcher.dispatchRound();
      expect(await taskStates(a.db, runId)).toEqual({ dispatched: 5, queued: 7 });
      const outcome = await a.taking.take([1, 2, 3].map((seq) => succeeded(runId, seq, 1)));
      expect(outcome).toMatchObject({ applied: 3, refilled: 3, roomLeft: false });
      expect(await taskStates(a.db, runId)).toEqual({ succeeded: 3, dispatched: 5, queued: 4 });
      await outcome.published;
      expect((await published(runId)).map((t) => [t.seq, t.attempt])).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((seq) => [seq, 1]));
      // The tenant's concurrency holds: a round finds no room, and the next intake fills only what it frees.
      await a.dispatcher.dispatchRound();
      expect(await taskStates(a.db, runId)).toEqual({ succeeded: 3, dispatched: 5, queued: 4 });
      expect(await a.taking.take([succeeded(runId, 4, 1)])).toMatchObject({ applied: 1, refilled: 1 });
      expect(await taskStates(a.db, runId)).toEqual({ succeeded: 4, dispatched: 5, queued: 3 });
    });

    it('leaves the freed slots to a round when the tenant has another run waiting, which shares them between the runs', async () => {
      const tenantId = await createTenant(a.db, 4);
      const first = await createJobWithRun(a.db, tenantId, urls(10));
      await a.dispatcher.dispatchRound();
      const second = await createJobWithRun(a.db, tenantId, urls(10));
      expect(await a.taking.take([1, 2].map((seq) => succeeded(first.runId, seq, 1)))).toMatchObject({ applied: 2, refilled: 0 });
      await a.dispatcher.dispatchRound();
      expect(await taskStates(a.db, first.runId)).toEqual({ succeeded: 2, dispatched: 3, queued: 5 });
      expect(await taskStates(a.db, second.runId)).toEqual({ dispatched: 1, queued: 9 });
    });

    it('claims nothing for a run paused before its results came in', async () => {
      const tenantId = await createTenant(a.db, 3);
      const { runId } = await createJobWithRun(a.db, tenantId, urls(10));
      await a.dispatcher.dispatchRound();
      await a.db.query(`UPDATE job_runs SET status = 'paused' WHERE id = $1`, [runId]);
      expect(await a.taking.take([1, 2].map((seq) => succeeded(runId, seq, 1)))).toMatchObject({ applied: 2, refilled: 0 });
      expect(await taskStates(a.db, runId)).toEqual({ succeeded: 2, dispatched: 1, queued: 7 });
    });

    it('claims nothing for a tenant a round is dispatching, and nothing for a run its last results completed', async () => {
      const tenantId = await createTenant(a.db, 3);
      const busy = await createJobWithRun(a.db, tenantId, urls(6));
      await a.dispatcher.dispatchRound();
      // A round of another replica holds the tenant's dispatch lock for its transaction.
      const round = await b.db.pool.connect();
      try {
        await round.query('BEGIN');
        await round.query(`SELECT pg_advisory_xact_lock(hashtextextended('batch-dispatch:' || $1::text, 0))`, [tenantId]);
        expect(await a.taking.take([succeeded(busy.runId, 1, 1)])).toMatchObject({ applied: 1, refilled: 0 });
      } finally {
        await round.query('ROLLBACK');
        round.release();
      }
      expect(await taskStates(a.db, busy.runId)).toEqual({ succeeded: 1, dispatched: 2, queued: 3 });

      const other = await createTenant(a.db, 3);
      const { runId } = await createJobWithRun(a.db, other, urls(3));
      await a.dispatcher.dispatchRound();
      const outcome = await a.taking.take([1, 2, 3].map((seq) => succeeded(runId, seq, 1)));
      expect(outcome).toMatchObject({ applied: 3, refilled: 0, completed: [runId] });
      expect(await runRow(a.db, runId)).toMatchObject({ status: 'completed', successful: 3 });
    });

    it('publishes the claims of an intake whose COMMIT lost its answer, and applies its results once', async () => {
      const cutter = await CommitReplyCutter.start(database.url);
      const relayed = await startRunsInstance(cutter.urlFor(database.url), runsSettings(topology));
      try {
        const tenantId = await createTenant(a.db, 2);
        const { runId } = await createJobWithRun(a.db, tenantId, urls(6));
        await a.dispatcher.dispatchRound();
        cutter.cutNextCommitReplies(1);
        const results = [1, 2].map((seq) => succeeded(runId, seq, 1));
        await expect(relayed.taking.take(results)).rejects.toThrow(CommitOutcomeUnknownError);
        expect(cutter.cut).toBe(1);
        // Committed: without publishing, the two claims would sit dispatched for their whole lease.
        expect(await taskStates(a.db, runId)).toEqual({ succeeded: 2, dispatched: 2, queued: 2 });
        await waitFor(async () => (await published(runId)).length === 4, { what: 'the claims published' });
        expect((await published(runId)).map((t) => t.seq)).toEqual([1, 2, 3, 4]);
        // The consumer applies the results again: nothing changes, nothing more is claimed.
        expect(await a.taking.take(results)).toMatchObject({ applied: 0, ignored: 2, refilled: 0 });
        expect(await runRow(a.db, runId)).toMatchObject({ successful: 2, credits: 2 });
      } finally {
        await relayed.close();
        await cutter.close();
      }
    });

    it('leaves every claim to the rounds when turned off, or when the window has no room for a whole round after it', async () => {
      for (const overrides of [{ refillOnIntake: false }, { dispatchBatch: 1024, dispatchWindow: 1024 }]) {
        const instance = await startRunsInstance(database.url, runsSettings(topology, overrides));
        try {
          const tenantId = await createTenant(a.db, 2);
          const { runId } = await createJobWithRun(a.db, tenantId, urls(5));
          await instance.dispatcher.dispatchRound();
          expect(await instance.taking.take([succeeded(runId, 1, 1)])).toMatchObject({ applied: 1, refilled: 0 });
          expect(await taskStates(a.db, runId)).toEqual({ succeeded: 1, dispatched: 1, queued: 3 });
        } finally {
          await instance.close();
        }
      }
    });
  });
});
