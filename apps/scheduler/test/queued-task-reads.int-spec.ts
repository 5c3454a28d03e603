import { Database, createDataSource, queuedTasksUpTo, runHasQueuedTask } from '@trawl/persistence';
import { createMigratedDatabase, pagesReadBy, type TestDatabase } from '@trawl/testing';
import type { DataSource } from 'typeorm';
import { createJobWithRun, createTenant } from './support/runs-harness';

/** Tasks claimed and answered before the rest (each leaves a dead entry at the oldest end of `run_tasks_queued`). */
const TASKS_DONE = 20_000;

/**
 * How a dispatch round asks how many tasks a run has queued, which it does for every candidate
 * run: at a constant cost however many of the run's tasks were claimed already.
 */
describe('queued task reads', () => {
  let database: TestDatabase;
  let dataSource: DataSource;
  let db: Database;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    dataSource = await createDataSource({ url: database.url, poolSize: 2 }).initialize();
    db = new Database(dataSource);
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  /** A run of `done + queued` tasks whose first `done` were claimed and succeeded. */
  async function runWithHistory(done: number, queued: number): Promise<string> {
    const urls = Array.from({ length: done + queued }, (_, i) => `https://site.test/p/${i + 1}`);
    const { runId } = await createJobWithRun(db, await createTenant(db, 10), urls);
    await db.query(`UPDATE run_tasks SET state = 'dispatched', lease_until = now() + interval '30 s' WHERE run_id = $1 AND seq <= $2`, [
      runId,
      done,
    ]);
    await db.query(`UPDATE run_tasks SET state = 'succeeded', lease_until = NULL WHERE run_id = $1 AND seq <= $2`, [runId, done]);
    return runId;
  }

  /** What the fragments answer for the run, and the index and table pages the statement read. */
  async function ask(runId: string, cap: number): Promise<{ queued: number; any: boolean; pagesRead: number }> {
    const select = `SELECT ${queuedTasksUpTo(`'${runId}'::uuid`, String(cap))} AS queued, ${runHasQueuedTask(`'${runId}'::uuid`)} AS any`;
    const [answer] = await db.query<{ queued: number; any: boolean }>(select);
    return { ...answer, pagesRead: await pagesReadBy(db, select) };
  }

  it('counts up to the cap, reading a few pages however many tasks were claimed before', async () => {
    const runId = await runWithHistory(TASKS_DONE, 100);
    const { queued, any, pagesRead } = await ask(runId, 64);
    expect({ queued, any }).toEqual({ queued: 64, any: true });
    // 20,000 claimed tasks leave ~60 index pages of dead entries; 64 live ones fit in a few.
    expect(pagesRead).toBeLessThanOrEqual(12);
  });

  it('counts fewer than the cap, and answers false once nothing is queued', async () => {
    expect(await ask(await runWithHistory(100, 3), 64)).toMatchObject({ queued: 3, any: true });
    expect(await ask(await runWithHistory(100, 0), 64)).toMatchObject({ queued: 0, any: false });
  });
});
