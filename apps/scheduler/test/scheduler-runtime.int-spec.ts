import type { Pool } from 'pg';
import { systemClock } from '@trawl/scheduling';
import { createMigratedDatabase, sqlOn, testPool, TestDatabase, uniqueSuffix, waitFor } from '@trawl/testing';
import { SchedulerRuntime } from '../src/scheduler.runtime';
import { createSchedule, createTenant, createTestRunsTable, firingsOf, startInstance, TableRunStarter } from './support/scheduler-harness';

describe(SchedulerRuntime.name, () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    pool = testPool(database.url, 2);
    await createTestRunsTable(pool);
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  const sql = sqlOn(() => pool);

  it('elects itself, fires what is due on its timers, and gives the lease up on stop', async () => {
    const leaseName = `test.schedules.${uniqueSuffix()}`;
    const instance = await startInstance(database.url, leaseName, 'runtime', systemClock, new TableRunStarter(), {
      leaseTtlMs: 2_000,
      renewIntervalMs: 200,
      pollIntervalMs: 50,
    });
    const runtime = new SchedulerRuntime(instance.election, instance.firings, instance.settings, instance.logger);
    const tenantId = await createTenant(sql);
    // Created an hour ago: due now.
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, new Date(Date.now() - 3_600_000));
    try {
      await runtime.start();
      await runtime.start();
      const [firing] = await waitFor(
        async () => {
          const rows = await firingsOf(sql, tenantId, jobId);
          return rows.length > 0 && rows;
        },
        { what: 'the due schedule fired' },
      );
      expect(firing).toMatchObject({ outcome: 'started', leader_epoch: 1 });
    } finally {
      await runtime.stop();
      await runtime.stop();
      await instance.crash();
    }
    const [lease] = await sql.query<{ expires_at: unknown }>(`SELECT expires_at FROM leases WHERE name = $1`, [leaseName]);
    expect(lease?.expires_at).toBe(-Infinity);
  });
});
