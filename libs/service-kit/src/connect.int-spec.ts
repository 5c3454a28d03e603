import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import pino from 'pino';
import { Client } from 'pg';
import { messagingTopology, MessagingTopology } from '@trawl/contracts';
import { deleteStreams, ensureStream, MessagingConnection, MessagingErrorCode } from '@trawl/messaging';
import { READINESS_CHECKS, ReadinessCheck, readinessReport } from '@trawl/observability';
import { Database } from '@trawl/persistence';
import { createMigratedDatabase, createTestDatabase, TestDatabase, testServerUrl, uniqueSuffix, waitFor } from '@trawl/testing';
import { connectService, ServiceConnections } from './connect';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from './tokens';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

@Module({})
class ServiceUnderTest {}

/** The service's Nest app as its root module builds it: the health module and the kit's providers. */
function appOf(service: ServiceConnections) {
  return NestFactory.createApplicationContext(
    { module: ServiceUnderTest, imports: [service.health], providers: service.providers },
    { logger: false },
  );
}

describe(connectService.name, () => {
  const prefix = `kit${uniqueSuffix()}`;
  const topology: MessagingTopology = messagingTopology(prefix);
  const logger = pino({ level: 'silent' });
  const config = { NATS_URL, NATS_PREFIX: prefix, NATS_STREAM_REPLICAS: 1 };
  let migrated: TestDatabase;
  let empty: TestDatabase;
  let admin: MessagingConnection;

  beforeAll(async () => {
    [migrated, empty] = await Promise.all([createMigratedDatabase(), createTestDatabase()]);
    admin = await MessagingConnection.connect({ servers: NATS_URL, name: 'service-kit-test' });
  });

  afterAll(async () => {
    await deleteStreams(admin.jsm, Object.values(topology.streams));
    await admin.close();
    await Promise.all([migrated.drop(), empty.drop()]);
  });

  /** Connections to the test server whose `application_name` is `name`. */
  async function connectionsNamed(name: string): Promise<number> {
    const client = new Client({ connectionString: testServerUrl() });
    await client.connect();
    try {
      const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM pg_stat_activity WHERE application_name = $1', [name]);
      return Number(rows[0].count);
    } finally {
      await client.end();
    }
  }

  it('connects Postgres and NATS, provisions what the service names, reports postgres, nats and schema, and closes after the app', async () => {
    const name = `kit-${uniqueSuffix()}`;
    const service = await connectService({
      name,
      config,
      logger,
      database: { url: migrated.url, poolSize: 2 },
      messaging: (t) => ({ streams: [t.streams.batchWork, t.streams.batchResults], consumers: [t.consumers.batchSchedulers] }),
    });
    const app = await appOf(service);
    try {
      await app.init();
      expect(app.get(Database)).toBe(service.db);
      expect(app.get(SERVICE_MESSAGING)).toBe(service.messaging);
      expect(app.get(SERVICE_LOGGER)).toBe(logger);
      expect(await readinessReport(app.get<ReadinessCheck[]>(READINESS_CHECKS, { strict: false }))).toEqual({
        status: 'ready',
        checks: { postgres: true, nats: true, schema: true },
        reasons: {},
      });
      expect((await admin.jsm.streams.info(topology.streams.batchWork)).config.retention).toBe('workqueue');
      expect((await admin.jsm.consumers.info(topology.streams.batchResults, topology.consumers.batchSchedulers)).config.durable_name).toBe(
        topology.consumers.batchSchedulers,
      );
      // Only what was named: a stream nobody listed stays absent.
      await expect(admin.jsm.streams.info(topology.streams.crawlWork)).rejects.toThrow(/stream not found/i);
      expect(await connectionsNamed(`trawl-${name}`)).toBeGreaterThan(0);
    } finally {
      await app.close();
    }
    expect(service.messaging.nc.isClosed()).toBe(true);
    expect(service.db.dataSource.isInitialized).toBe(false);
    await waitFor(async () => (await connectionsNamed(`trawl-${name}`)) === 0, { what: 'the pool closed' });
    await service.close();
  });

  it('holds no database when none is asked for: the nats check only, and no Database to inject', async () => {
    const service = await connectService({
      name: `kit-${uniqueSuffix()}`,
      config,
      logger,
      messaging: (t) => ({ streams: [t.streams.crawlWork], consumers: [t.consumers.fetchWorkers] }),
    });
    const app = await appOf(service);
    try {
      await app.init();
      expect(service.db).toBeUndefined();
      expect(() => app.get(Database)).toThrow();
      expect(await readinessReport(app.get<ReadinessCheck[]>(READINESS_CHECKS, { strict: false }))).toEqual({
        status: 'ready',
        checks: { nats: true },
        reasons: {},
      });
    } finally {
      await app.close();
    }
    expect(service.messaging.nc.isClosed()).toBe(true);
  });

  it('reports the schema behind, with the reason, on a database the migration job has not run on', async () => {
    const service = await connectService({
      name: `kit-${uniqueSuffix()}`,
      config,
      logger,
      database: { url: empty.url, poolSize: 1 },
      messaging: () => ({ streams: [], consumers: [] }),
    });
    const app = await appOf(service);
    try {
      const report = await readinessReport(app.get<ReadinessCheck[]>(READINESS_CHECKS, { strict: false }));
      expect(report).toMatchObject({ status: 'not_ready', checks: { postgres: true, nats: true, schema: false } });
      expect(report.reasons.schema).toMatch(/database schema is behind: \d+ migrations pending .*run the migration job/);
    } finally {
      // The app's closer and a direct call: closing twice is safe.
      await app.close();
      await service.close();
    }
  });

  it('closes what it opened when provisioning fails', async () => {
    // The events stream exists with a retention its definition cannot change in place.
    await ensureStream(admin.jsm, { name: topology.streams.events, subjects: [`${prefix}.elsewhere.>`], retention: 'workqueue' });
    const name = `kit-${uniqueSuffix()}`;
    await expect(
      connectService({
        name,
        config,
        logger,
        database: { url: migrated.url, poolSize: 2 },
        messaging: (t) => ({ streams: [t.streams.events], consumers: [] }),
      }),
    ).rejects.toMatchObject({ code: MessagingErrorCode.StreamConfigConflict });
    await waitFor(async () => (await connectionsNamed(`trawl-${name}`)) === 0, { what: 'the pool closed' });
  });
});
