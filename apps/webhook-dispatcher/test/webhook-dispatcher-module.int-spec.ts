import { randomUUID } from 'node:crypto';
import { NestFactory } from '@nestjs/core';
import type { Pool } from 'pg';
import pino from 'pino';
import { loadConfig } from '@trawl/config';
import { messagingTopology, runWebhookEventSubject, RunWebhookEventV1 } from '@trawl/contracts';
import { deleteStreams, MessagingConnection, publishJson } from '@trawl/messaging';
import { createMigratedDatabase, sqlOn, testPool, TestDatabase, uniqueSuffix, waitFor } from '@trawl/testing';
import { webhookDispatcherConfigSchema } from '../src/config';
import { WebhookDispatcherModule } from '../src/webhook-dispatcher.module';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

describe(WebhookDispatcherModule.name, () => {
  const prefix = `wd${uniqueSuffix()}`;
  let database: TestDatabase;
  let pool: Pool;
  let nats: MessagingConnection;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    pool = testPool(database.url, 2);
    nats = await MessagingConnection.connect({ servers: NATS_URL, name: 'webhook-dispatcher-test' });
  });

  afterAll(async () => {
    await deleteStreams(nats.jsm, Object.values(messagingTopology(prefix).streams));
    await nats.close();
    await pool.end();
    await database.drop();
  });

  const sql = sqlOn(() => pool);

  it('boots, attempts a run event as soon as it is taken in, and stops within SHUTDOWN_TIMEOUT_MS', async () => {
    const config = loadConfig(webhookDispatcherConfigSchema, {
      DATABASE_URL: database.url,
      NATS_URL,
      NATS_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      // Nothing listens on port 1: the attempt fails and a retry is scheduled.
      EGRESS_HOST_MAP: 'hooks.test=127.0.0.1',
      // A poll no test waits out: an attempt made in time was woken by the intake.
      WEBHOOK_POLL_INTERVAL_MS: '60000',
      SHUTDOWN_TIMEOUT_MS: '4000',
    });
    const [tenant] = await sql.query<{ id: string }>(
      `INSERT INTO tenants (name, credits_limit, concurrency, max_active_jobs, period_ends_at)
       VALUES ('t', 1000, 5, 3, now() + interval '30 days') RETURNING id`,
    );
    const event: RunWebhookEventV1 = {
      v: 1,
      event_id: randomUUID(),
      event_type: 'run.completed',
      occurred_at: new Date().toISOString(),
      tenant_id: tenant.id,
      job_id: 'job',
      run_id: 'run',
      run_sequence: 1,
      stats: { total: 1, completed: 1, successful: 1, failed: 0, spend: { credits: 1, cost: 0.0001 } },
      webhook: { url: 'https://hooks.test:1/runs', signature: false },
    };
    const app = await NestFactory.createApplicationContext(await WebhookDispatcherModule.forRoot(config, pino({ level: 'silent' })), {
      logger: false,
    });
    try {
      await app.init();
      await publishJson(nats.js, runWebhookEventSubject(messagingTopology(prefix), 'run.completed'), event, { msgId: event.event_id });
      const delivery = await waitFor(
        async () => {
          const [row] = await sql.query<{ attempts: number; status: string }>(
            `SELECT attempts, status FROM webhook_deliveries WHERE event_id = $1`,
            [event.event_id],
          );
          return row?.attempts === 1 && row;
        },
        { what: 'the first attempt', timeoutMs: 20_000 },
      );
      expect(delivery.status).toBe('pending');
    } finally {
      const closing = Date.now();
      await app.close();
      expect(Date.now() - closing).toBeLessThan(4_000);
    }
  });
});
