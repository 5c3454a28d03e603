import { DynamicModule, OnApplicationShutdown, Provider } from '@nestjs/common';
import type { BaseConfig } from '@trawl/config';
import { MessagingTopology, messagingTopology } from '@trawl/contracts';
import { ensureConsumer, ensureStream, MessagingConnection } from '@trawl/messaging';
import { createMetricsRegistry, HealthModule, Logger } from '@trawl/observability';
import { createDataSource, Database } from '@trawl/persistence';
import type { Registry } from 'prom-client';
import { serviceReadinessChecks } from './readiness';
import { messagingDefinitionsOf, ServiceMessaging } from './service-messaging';
import { SERVICE_LOGGER, SERVICE_MESSAGING } from './tokens';

/** The service's Postgres pool. */
export interface ServiceDatabaseOptions {
  url: string;
  /** Most connections of this process (the service's `DB_POOL_SIZE`). */
  poolSize: number;
}

export interface ConnectServiceOptions {
  /**
   * The service's name, e.g. `crawl-coordinator`: names its NATS connection, its Postgres
   * `application_name` (`trawl-<name>`) and the `service` label of its metrics.
   */
  name: string;
  config: Pick<BaseConfig, 'NATS_URL' | 'NATS_PREFIX' | 'NATS_STREAM_REPLICAS'>;
  logger: Logger;
  /** Absent for a service that holds no database connection (the fetch worker). */
  database?: ServiceDatabaseOptions;
  /** The streams and durable consumers the service uses, provisioned at boot from their definitions in libs/contracts. */
  messaging(topology: MessagingTopology): ServiceMessaging;
}

/** What a back-end service is built on, connected and provisioned; `db` is there when `database` was given. */
export interface ServiceConnections<D extends Database | undefined = Database | undefined> {
  topology: MessagingTopology;
  logger: Logger;
  db: D;
  messaging: MessagingConnection;
  /** Every metric of the service registers here (`service` label set). */
  registry: Registry;
  /** `/healthz`, `/readyz` (checks `postgres`, `nats`, `schema`) and `/metrics`: import it in the root module. */
  health: DynamicModule;
  /**
   * `SERVICE_LOGGER`, `SERVICE_MESSAGING`, `Database` (when there is one), and the closer that
   * closes the connections on `onApplicationShutdown`, after every runtime has stopped.
   */
  providers: Provider[];
  /** Closes the NATS connection (draining it) and the database pool. Safe to call twice. */
  close(): Promise<void>;
}

/** Runs after every `beforeApplicationShutdown` hook (the runtimes' stops) and after the HTTP server closed. */
class ServiceConnectionsCloser implements OnApplicationShutdown {
  constructor(private readonly close: () => Promise<void>) {}

  onApplicationShutdown(): Promise<void> {
    return this.close();
  }
}

/**
 * Connects what a back-end service needs, in the order that lets a bad `DATABASE_URL` or `NATS_URL`
 * fail the boot with a clear message: Postgres (when asked), NATS, then the streams and durable
 * consumers it uses (idempotent, so every replica does it at boot). Closes what it opened when a
 * later step fails. Never migrates: a schema behind the build is reported by `/readyz`.
 */
export function connectService(
  options: ConnectServiceOptions & { database: ServiceDatabaseOptions },
): Promise<ServiceConnections<Database>>;
export function connectService(options: ConnectServiceOptions & { database?: undefined }): Promise<ServiceConnections<undefined>>;
export async function connectService(options: ConnectServiceOptions): Promise<ServiceConnections> {
  const { name, config, logger } = options;
  const topology = messagingTopology(config.NATS_PREFIX, { replicas: config.NATS_STREAM_REPLICAS });
  // Before connecting: a name without a definition is a bug, not an outage.
  const definitions = messagingDefinitionsOf(topology, options.messaging(topology));
  let db: Database | undefined;
  let messaging: MessagingConnection | undefined;
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      await messaging?.close().catch(() => undefined);
      if (db?.dataSource.isInitialized) await db.dataSource.destroy().catch(() => undefined);
    })());
  try {
    if (options.database) {
      const dataSource = await createDataSource({
        url: options.database.url,
        poolSize: options.database.poolSize,
        applicationName: `trawl-${name}`,
      }).initialize();
      db = new Database(dataSource, (error) => logger.warn({ err: error }, 'idle database connection lost'));
    }
    messaging = await MessagingConnection.connect({ servers: config.NATS_URL, name });
    for (const stream of definitions.streams) await ensureStream(messaging.jsm, stream);
    for (const consumer of definitions.consumers) await ensureConsumer(messaging.jsm, consumer);
  } catch (error) {
    await close();
    throw error;
  }
  const registry = createMetricsRegistry(name);
  return {
    topology,
    logger,
    db,
    messaging,
    registry,
    health: HealthModule.register({ registry, checks: serviceReadinessChecks({ db, messaging }) }),
    providers: [
      { provide: SERVICE_LOGGER, useValue: logger },
      { provide: SERVICE_MESSAGING, useValue: messaging },
      ...(db ? [{ provide: Database, useValue: db }] : []),
      { provide: ServiceConnectionsCloser, useValue: new ServiceConnectionsCloser(close) },
    ],
    close,
  };
}
