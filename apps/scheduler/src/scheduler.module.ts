import { BeforeApplicationShutdown, DynamicModule, Inject, Injectable, Module } from '@nestjs/common';
import { crawlMessagingDefinitions, messagingTopology } from '@trawl/contracts';
import { ensureStream, MessagingConnection } from '@trawl/messaging';
import { createDataSource, Database } from '@trawl/persistence';
import { createMetricsRegistry, HealthModule } from '@trawl/observability';
import { SchedulerConfig } from './config';

const CONNECTIONS = Symbol('CONNECTIONS');

/** Closes what the service opened, on shutdown. */
@Injectable()
class Connections implements BeforeApplicationShutdown {
  constructor(@Inject(CONNECTIONS) private readonly held: { db: Database; messaging: MessagingConnection }) {}
  async beforeApplicationShutdown(): Promise<void> {
    await this.held.messaging.close();
    await this.held.db.dataSource.destroy().catch(() => undefined);
  }
}

/**
 * The scheduler as a bare service for now: configuration, connections, health and metrics. Its
 * features (see ARCHITECTURE.md §1) arrive with the Batch API issue.
 */
@Module({})
export class SchedulerModule {
  static async forRoot(config: SchedulerConfig): Promise<DynamicModule> {
    const dataSource = await createDataSource({
      url: config.DATABASE_URL,
      poolSize: config.DB_POOL_SIZE,
      applicationName: 'trawl-scheduler',
    }).initialize();
    const db = new Database(dataSource);
    const messaging = await MessagingConnection.connect({ servers: config.NATS_URL, name: 'scheduler' });
    const events = crawlMessagingDefinitions(messagingTopology(config.NATS_PREFIX)).streams.filter((s) =>
      s.name.endsWith('_EVENTS'),
    );
    for (const stream of events) await ensureStream(messaging.jsm, stream);
    const registry = createMetricsRegistry('scheduler');
    return {
      module: SchedulerModule,
      imports: [
        HealthModule.register({
          registry,
          checks: [
            { name: 'postgres', check: () => db.ping() },
            { name: 'nats', check: () => messaging.isConnected() },
          ],
        }),
      ],
      providers: [{ provide: CONNECTIONS, useValue: { db, messaging } }, Connections],
    };
  }
}
