import { NestFactory } from '@nestjs/core';
import type { Pool } from 'pg';
import pino from 'pino';
import { loadConfig } from '@trawl/config';
import { messagingTopology } from '@trawl/contracts';
import { deleteStreams, MessagingConnection } from '@trawl/messaging';
import { createMigratedDatabase, sqlOn, testPool, TestDatabase, uniqueSuffix, waitFor } from '@trawl/testing';
import { schedulerConfigSchema } from '../src/config';
import { SchedulerModule } from '../src/scheduler.module';
import { SCHEDULE_LEASE_NAME } from '../src/scheduler.settings';
import { createSchedule, createTenant, createTestRunsTable, firingsOf, TableRunStarter } from './support/scheduler-harness';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

describe(SchedulerModule.name, () => {
  let database: TestDatabase;
  let pool: Pool;
  const prefix = `sch${uniqueSuffix()}`;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    pool = testPool(database.url, 2);
    await createTestRunsTable(pool);
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
    const messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'scheduler-test-cleanup' });
    await deleteStreams(messaging.jsm, Object.values(messagingTopology(prefix).streams));
    await messaging.close();
  });

  const sql = sqlOn(() => pool);

  it('boots, leads, fires a due schedule through the wired run starter, and releases the lease on close', async () => {
    const config = loadConfig(schedulerConfigSchema, {
      DATABASE_URL: database.url,
      NATS_URL,
      NATS_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      SCHEDULER_LEASE_TTL_MS: '2000',
      SCHEDULER_RENEW_INTERVAL_MS: '200',
      SCHEDULE_POLL_INTERVAL_MS: '50',
    });
    const tenantId = await createTenant(sql);
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 2, unit: 'hours' } }, new Date(Date.now() - 7_200_000));
    const app = await NestFactory.createApplicationContext(
      await SchedulerModule.forRoot(config, pino({ level: 'silent' }), { runStarter: new TableRunStarter() }),
      { logger: false },
    );
    try {
      await app.init();
      const [firing] = await waitFor(
        async () => {
          const rows = await firingsOf(sql, tenantId, jobId);
          return rows.length > 0 && rows;
        },
        { what: 'the due schedule fired' },
      );
      expect(firing).toMatchObject({ outcome: 'started', leader_epoch: 1 });
    } finally {
      await app.close();
    }
    const [lease] = await sql.query<{ expires_at: unknown }>(`SELECT expires_at FROM leases WHERE name = $1`, [SCHEDULE_LEASE_NAME]);
    expect(lease?.expires_at).toBe(-Infinity);
  });
});
