import { randomUUID } from 'node:crypto';
import { createDataSource, Database, RunsRepository } from '@trawl/persistence';
import { createMigratedDatabase, TestDatabase, waitFor } from '@trawl/testing';
import type { DataSource } from 'typeorm';
import { BatchError, BatchErrorCode } from '../src/batch/batch.errors';
import { createJobBody } from '@trawl/contracts/http';
import { JobIngestsRepository } from '../src/batch/job-ingests.repository';
import { JobsRepository } from '../src/batch/jobs.repository';
import { TaskIngestService } from '../src/batch/task-ingest.service';
import { CreatedJob, JobsService } from '../src/batch/jobs.service';
import { SigningKeysService } from '../src/webhooks/signing-keys.service';
import { WebhookError, WebhookErrorCode } from '../src/webhooks/webhooks.errors';
import { buildJobsService } from './batch-files-support';

jest.setTimeout(60_000);

describe(JobsService.name, () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let db: Database;
  let jobs: JobsService;
  let signingKeys: SigningKeysService;
  let ingest: TaskIngestService;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    dataSource = await createDataSource({ url: database.url, poolSize: 8 }).initialize();
    db = new Database(dataSource);
    ({ jobs, ingest, signingKeys } = buildJobsService(db));
  });

  afterAll(async () => {
    await ingest?.beforeApplicationShutdown();
    await dataSource?.destroy();
    await database?.drop();
  });

  async function tenant(maxActiveJobs = 3): Promise<string> {
    const id = randomUUID();
    await db.query(
      `INSERT INTO tenants (id, name, credits_limit, period_ends_at, concurrency, max_active_jobs)
       VALUES ($1, $2, 1000000, now() + interval '30 days', 5, $3)`,
      [id, `t-${id}`, maxActiveJobs],
    );
    return id;
  }

  const urls = (n: number, from = 0) =>
    Array.from({ length: n }, (_, i) => ({ url: `https://shop.test/p/${from + i}`, external_id: `e${from + i}` }));
  const body = (extra: Record<string, unknown>) => createJobBody.parse(extra);

  async function errorOf(promise: Promise<unknown>): Promise<{ code: string; extensions: Record<string, unknown> }> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof BatchError || error instanceof WebhookError) return { code: error.code, extensions: error.extensions };
      throw error;
    }
    throw new Error('expected a refusal');
  }

  describe('create', () => {
    it('writes a closed job with its tasks and a queued first run whose total is exact', async () => {
      const t = await tenant();
      const { job, synchronous } = await jobs.create(t, body({ tasks: urls(3), service_params: { js_render: 'true' } }), undefined);
      expect(synchronous).toBe(true);
      expect(job).toMatchObject({ type: 'regular', status: 'closed', taskCount: 3, serviceParams: { js_render: 'true' } });
      expect(job.latestRun).toMatchObject({ runSequence: 1, kind: 'initial', status: 'queued', total: 3, successful: 0, failed: 0 });
      const rows = await db.query<{ seq: number; url: string; external_id: string; state: string }>(
        `SELECT t.seq, t.url, t.external_id, rt.state FROM job_tasks t JOIN run_tasks rt ON rt.seq = t.seq AND rt.run_id = $2
          WHERE t.job_id = $1 ORDER BY t.seq`,
        [job.id, job.latestRun?.id],
      );
      expect(rows).toEqual([
        { seq: 1, url: 'https://shop.test/p/0', external_id: 'e0', state: 'queued' },
        { seq: 2, url: 'https://shop.test/p/1', external_id: 'e1', state: 'queued' },
        { seq: 3, url: 'https://shop.test/p/2', external_id: 'e2', state: 'queued' },
      ]);
    });

    it('answers asynchronously from 10,000 tasks with the total exact, then writes every row and makes the job ready', async () => {
      const t = await tenant();
      const { job, synchronous } = await jobs.create(t, body({ tasks: urls(10_000) }), undefined);
      expect(synchronous).toBe(false);
      expect(job).toMatchObject({ ingestState: 'ingesting', taskCount: 10_000, latestRun: { total: 10_000 } });
      await waitFor(async () => (await jobs.get(t, job.id)).ingestState === 'ready', { what: 'the ingest to finish' });
      const [count] = await db.query<{ n: number; tasks: number }>(
        `SELECT count(*)::int AS n, (SELECT count(*)::int FROM job_tasks WHERE job_id = $2) AS tasks FROM run_tasks WHERE run_id = $1`,
        [job.latestRun?.id, job.id],
      );
      expect(count).toEqual({ n: 10_000, tasks: 10_000 });
      expect(await db.query(`SELECT 1 FROM job_ingests WHERE job_id = $1`, [job.id])).toEqual([]);
    });

    it('finishes an ingest cut off by a crash from where it stopped, once its lease runs out', async () => {
      const t = await tenant();
      const jobId = randomUUID();
      const runId = randomUUID();
      // What a gateway that died after writing the first 5,000 rows leaves behind.
      const tasks = urls(12_000).map((task) => ({
        url: task.url,
        method: 'GET',
        body: null,
        externalId: task.external_id,
        metadata: null,
        serviceParams: null,
      }));
      await db.transaction(async (sql) => {
        await new JobsRepository(db).insertJob(sql, {
          id: jobId,
          tenantId: t,
          type: 'regular',
          status: 'closed',
          serviceParams: {},
          webhook: null,
          idempotencyKey: null,
          fileInputId: null,
          taskCount: 12_000,
          ingestState: 'ingesting',
        });
        await new RunsRepository().insertRun(sql, {
          id: runId,
          jobId,
          tenantId: t,
          kind: 'initial',
          total: 12_000,
          traceParent: undefined,
        });
        await new JobsRepository(db).insertTasks(sql, jobId, 1, tasks.slice(0, 5_000) as never);
        await new RunsRepository().insertRunTasks(sql, runId, 1, 5_000);
        await new JobIngestsRepository().insert(
          sql,
          { jobId, tenantId: t, runId, tasksJson: JSON.stringify(tasks), taskCount: 12_000, nextSeq: 5_001, leaseToken: randomUUID() },
          60,
        );
      });
      expect(await ingest.recoverExpired()).toBe(0); // its lease still holds
      await db.query(`UPDATE job_ingests SET lease_until = now() - interval '1 second' WHERE job_id = $1`, [jobId]);
      expect(await ingest.recoverExpired()).toBe(1);
      expect((await jobs.get(t, jobId)).ingestState).toBe('ready');
      const rows = await db.query<{ seq: number; external_id: string }>(
        `SELECT t.seq, t.external_id FROM run_tasks rt JOIN job_tasks t ON t.job_id = $2 AND t.seq = rt.seq WHERE rt.run_id = $1 ORDER BY rt.seq`,
        [runId, jobId],
      );
      expect(rows).toHaveLength(12_000);
      expect(rows[11_999]).toEqual({ seq: 12_000, external_id: 'e11999' });
    });

    it('refuses the whole submission when a task is invalid, naming each, and writes nothing', async () => {
      const t = await tenant();
      const refusal = await errorOf(jobs.create(t, body({ tasks: [{ url: 'https://shop.test/a' }, { url: 'mailto:x@y.z' }] }), undefined));
      expect(refusal.code).toBe(BatchErrorCode.InvalidTasks);
      expect(refusal.extensions.invalid_tasks).toEqual([expect.objectContaining({ index: 1, field: 'url' })]);
      expect(await jobs.list(t, {}, undefined, 10)).toEqual([]);
    });

    it('shares the active-job limit with crawls: a job over it is quota_exceeded', async () => {
      const t = await tenant(2);
      await db.query(
        `INSERT INTO crawls (id, tenant_id, status, url, max_items, max_pages, scope_domain)
         VALUES ($1, $2, 'running', 'https://shop.test/', 10, 10, 'shop.test')`,
        [randomUUID(), t],
      );
      // One running crawl + one job = the limit of 2.
      await jobs.create(t, body({ tasks: urls(1) }), undefined);
      expect((await errorOf(jobs.create(t, body({ tasks: urls(1) }), undefined))).code).toBe(BatchErrorCode.QuotaExceeded);
    });

    it('lets two racing submissions take the last slot only once', async () => {
      const t = await tenant(1);
      const outcomes = await Promise.allSettled([
        jobs.create(t, body({ tasks: urls(1) }), undefined),
        jobs.create(t, body({ tasks: urls(1) }), undefined),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect((refused?.reason as BatchError).code).toBe(BatchErrorCode.QuotaExceeded);
    });

    it('uses an idempotency key once: a reuse is a conflict naming the first job, whatever the body', async () => {
      const t = await tenant();
      const { job: first } = await jobs.create(t, body({ tasks: urls(1) }), 'key-1');
      const conflict = { code: BatchErrorCode.IdempotencyKeyConflict, extensions: { job_id: first.id } };
      expect(await errorOf(jobs.create(t, body({ tasks: urls(1) }), 'key-1'))).toEqual(conflict);
      expect(await errorOf(jobs.create(t, body({ tasks: urls(2) }), 'key-1'))).toEqual(conflict);
      // A resend that its checks refuse is the conflict too (`refusalOrKeyConflict`), naming the same job.
      expect(await errorOf(jobs.create(t, body({ tasks: [{ url: 'mailto:x@y.z' }] }), 'key-1'))).toEqual(conflict);
    });

    it('lets two racing submissions with one key create one job; the other names it', async () => {
      const t = await tenant();
      const outcomes = await Promise.allSettled([
        jobs.create(t, body({ tasks: urls(1) }), 'key-race'),
        jobs.create(t, body({ tasks: urls(2) }), 'key-race'),
      ]);
      const created = outcomes.filter((o): o is PromiseFulfilledResult<CreatedJob> => o.status === 'fulfilled');
      const refused = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(created).toHaveLength(1);
      expect(refused?.reason).toMatchObject({
        code: BatchErrorCode.IdempotencyKeyConflict,
        extensions: { job_id: created[0]?.value.job.id },
      });
    });

    it("treats a key another tenant used as unused: no conflict, and this tenant's reuse names its own job", async () => {
      const other = await tenant();
      const { job: othersJob } = await jobs.create(other, body({ tasks: urls(1) }), 'key-shared');
      const t = await tenant();
      const { job: own } = await jobs.create(t, body({ tasks: urls(1) }), 'key-shared');
      expect(own.id).not.toBe(othersJob.id);
      expect(await errorOf(jobs.create(t, body({ tasks: urls(1) }), 'key-shared'))).toEqual({
        code: BatchErrorCode.IdempotencyKeyConflict,
        extensions: { job_id: own.id },
      });
      // A refused submission under the other tenant's key is the refusal, not a conflict.
      expect((await errorOf(jobs.create(await tenant(), body({ tasks: [{ url: 'mailto:x@y.z' }] }), 'key-shared'))).code).toBe(
        BatchErrorCode.InvalidTasks,
      );
    });

    it('answers a reused idempotency key with the conflict even when the account is at its limit', async () => {
      const t = await tenant(1);
      const { job: first } = await jobs.create(t, body({ tasks: urls(1) }), 'key-at-limit');
      expect(await errorOf(jobs.create(t, body({ tasks: urls(1) }), 'key-at-limit'))).toEqual({
        code: BatchErrorCode.IdempotencyKeyConflict,
        extensions: { job_id: first.id },
      });
      expect((await errorOf(jobs.create(t, body({ tasks: urls(1) }), 'key-fresh'))).code).toBe(BatchErrorCode.QuotaExceeded);
    });

    it('refuses an http webhook, and a signed one without an active key', async () => {
      const t = await tenant();
      expect((await errorOf(jobs.create(t, body({ tasks: urls(1), webhook: { url: 'http://hooks.test/x' } }), undefined))).code).toBe(
        WebhookErrorCode.CallbackUrlMustBeHttps,
      );
      const signed = body({ tasks: urls(1), webhook: { url: 'https://hooks.test/x', signature: true } });
      expect((await errorOf(jobs.create(t, signed, undefined))).code).toBe(WebhookErrorCode.SigningRequiresActiveKey);
      await signingKeys.rotate(t);
      const { job } = await jobs.create(t, signed, undefined);
      expect(job).toMatchObject({ webhookUrl: 'https://hooks.test/x', webhookSignature: true });
    });
  });

  describe('addTasks and close', () => {
    it('appends to an open job and its run, numbering after the last task; last_batch closes it', async () => {
      const t = await tenant();
      const { job } = await jobs.create(t, body({ status: 'open', tasks: urls(2) }), undefined);
      const grown = await jobs.addTasks(t, job.id, urls(3, 2), false);
      expect(grown).toMatchObject({ status: 'open', taskCount: 5, latestRun: { total: 5 } });
      const closed = await jobs.addTasks(t, job.id, urls(1, 5), true);
      expect(closed).toMatchObject({ status: 'closed', taskCount: 6, latestRun: { total: 6 } });
      const seqs = await db.query<{ seq: number }>(`SELECT seq FROM run_tasks WHERE run_id = $1 ORDER BY seq`, [closed.latestRun?.id]);
      expect(seqs.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
      expect((await errorOf(jobs.addTasks(t, job.id, urls(1), false))).code).toBe(BatchErrorCode.JobClosed);
    });

    it('closes an open job once; another tenant sees no job', async () => {
      const t = await tenant();
      const { job } = await jobs.create(t, body({ status: 'open' }), undefined);
      expect((await jobs.close(t, job.id)).status).toBe('closed');
      expect((await jobs.close(t, job.id)).status).toBe('closed');
      expect((await errorOf(jobs.close(await tenant(), job.id))).code).toBe(BatchErrorCode.JobNotFound);
      expect((await errorOf(jobs.get(t, 'not-a-uuid'))).code).toBe(BatchErrorCode.JobNotFound);
    });
  });

  describe('list', () => {
    it('pages newest first and filters by status', async () => {
      const t = await tenant(10);
      const made = [];
      for (let i = 0; i < 3; i += 1)
        made.push((await jobs.create(t, body({ status: i === 1 ? 'open' : 'closed', tasks: urls(1) }), undefined)).job);
      const first = await jobs.list(t, {}, undefined, 2);
      expect(first.map((j) => j.id)).toEqual([made[2].id, made[1].id]);
      const rest = await jobs.list(t, {}, { createdAtMicros: first[1].createdAtMicros, id: first[1].id }, 2);
      expect(rest.map((j) => j.id)).toEqual([made[0].id]);
      expect((await jobs.list(t, { status: 'open' }, undefined, 10)).map((j) => j.id)).toEqual([made[1].id]);
    });
  });
});
