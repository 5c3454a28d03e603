import { randomUUID } from 'node:crypto';
import { createDataSource, Database, RunsRepository } from '@trawl/persistence';
import { createMigratedDatabase, TestDatabase } from '@trawl/testing';
import type { DataSource } from 'typeorm';
import { BatchRunStarter } from '../src/runs/batch-run-starter';
import { createTenant } from './support/scheduler-harness';

describe(BatchRunStarter.name, () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let db: Database;
  const starter = new BatchRunStarter();

  beforeAll(async () => {
    database = await createMigratedDatabase();
    dataSource = await createDataSource({ url: database.url, poolSize: 4 }).initialize();
    db = new Database(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  async function job(tenantId: string, type: 'scheduled' | 'regular', tasks: number): Promise<string> {
    const id = randomUUID();
    await db.query(`INSERT INTO jobs (id, tenant_id, type, status, service_params, task_count) VALUES ($1, $2, $3, 'closed', '{}', $4)`, [
      id,
      tenantId,
      type,
      tasks,
    ]);
    await db.query(
      `INSERT INTO job_tasks (job_id, seq, url) SELECT $1, s, 'https://shop.test/p/' || s FROM generate_series(1, $2::int) s`,
      [id, tasks],
    );
    return id;
  }

  const start = (tenantId: string, jobId: string) =>
    db.transaction((sql) => starter.startScheduledRun(sql, { tenantId, jobId, dueAt: new Date(), firingId: randomUUID() }));

  it('starts a run of every task of the job, numbered after the last, and reports it in flight', async () => {
    const tenant = await createTenant(db);
    const jobId = await job(tenant, 'scheduled', 2_500);
    const first = await start(tenant, jobId);
    expect(first.outcome).toBe('started');
    const runId = first.outcome === 'started' ? first.runId : '';
    const [run] = await db.query<{ run_sequence: number; kind: string; status: string; total: number; queued: number; latest: boolean }>(
      `SELECT r.run_sequence, r.kind, r.status, r.total,
              (SELECT count(*)::int FROM run_tasks WHERE run_id = r.id AND state = 'queued') AS queued,
              (SELECT latest_run_id = r.id FROM jobs WHERE id = r.job_id) AS latest
         FROM job_runs r WHERE r.id = $1`,
      [runId],
    );
    expect(run).toEqual({ run_sequence: 1, kind: 'scheduled', status: 'queued', total: 2_500, queued: 2_500, latest: true });
    expect(await db.transaction((sql) => starter.runInFlight(sql, { tenantId: tenant, jobId }))).toEqual({ runId });

    await db.query(`UPDATE job_runs SET status = 'completed' WHERE id = $1`, [runId]);
    expect(await db.transaction((sql) => starter.runInFlight(sql, { tenantId: tenant, jobId }))).toBeUndefined();
    const second = await start(tenant, jobId);
    expect(second.outcome).toBe('started');
    const [{ run_sequence }] = await db.query<{ run_sequence: number }>(`SELECT run_sequence FROM job_runs WHERE id = $1`, [
      second.outcome === 'started' ? second.runId : '',
    ]);
    expect(run_sequence).toBe(2);
  });

  it('refuses a start over the active-job limit, counting crawls and other runs', async () => {
    const tenant = await createTenant(db); // max_active_jobs 3
    for (let i = 0; i < 3; i += 1) expect((await start(tenant, await job(tenant, 'scheduled', 1))).outcome).toBe('started');
    expect(await start(tenant, await job(tenant, 'scheduled', 1))).toEqual({ outcome: 'refused', reason: 'quota_exceeded' });
  });

  it('refuses a start while a run of the job is in flight, whoever started it', async () => {
    const tenant = await createTenant(db);
    const jobId = await job(tenant, 'scheduled', 3);
    // A rerun committed after the firing's own look: only the starter, under the job lock, can see it.
    const rerunId = randomUUID();
    await db.transaction((sql) =>
      new RunsRepository().insertRun(sql, { id: rerunId, jobId, tenantId: tenant, kind: 'rerun', total: 3, traceParent: undefined }),
    );
    expect(await start(tenant, jobId)).toEqual({ outcome: 'refused', reason: 'previous_running' });
    expect(await db.query(`SELECT id FROM job_runs WHERE job_id = $1`, [jobId])).toEqual([{ id: rerunId }]);
  });

  it('refuses a job that is gone, not scheduled, or another tenant’s', async () => {
    const tenant = await createTenant(db);
    expect(await start(tenant, randomUUID())).toEqual({ outcome: 'refused', reason: 'job_unavailable' });
    expect(await start(tenant, await job(tenant, 'regular', 1))).toEqual({ outcome: 'refused', reason: 'job_unavailable' });
    const other = await createTenant(db);
    expect(await start(other, await job(tenant, 'scheduled', 1))).toEqual({ outcome: 'refused', reason: 'job_unavailable' });
  });
});
