import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { DynamicModule, Module } from '@nestjs/common';
import { crawlMessagingDefinitions, messagingTopology } from '@trawl/contracts';
import { ensureStream, MessagingConnection } from '@trawl/messaging';
import { createDataSource, Database } from '@trawl/persistence';
import { createMetricsRegistry, HealthModule, Logger } from '@trawl/observability';
import { Clock, systemClock } from '@trawl/scheduling';
import { SchedulerConfig } from './config';
import { LeaderElection } from './leadership/leader-election';
import { LeaseRepository } from './leadership/lease.repository';
import { BatchRunStarter } from './runs/batch-run-starter';
import { RUN_STARTER, RunStarter } from './schedules/run-starter';
import { ScheduleFiringService } from './schedules/schedule-firing.service';
import { SchedulesRepository } from './schedules/schedules.repository';
import { SchedulerMetrics } from './scheduler.metrics';
import { SCHEDULER_MESSAGING, SchedulerRuntime } from './scheduler.runtime';
import {
  SCHEDULE_LEASE_NAME,
  SCHEDULER_CLOCK,
  SCHEDULER_LOGGER,
  SCHEDULER_SETTINGS,
  SchedulerSettings,
} from './scheduler.settings';

/** What the scheduler is built with besides its config. */
export interface SchedulerModuleOptions {
  /** How firings start runs (default: runs of batch jobs, `BatchRunStarter`). */
  runStarter?: RunStarter;
  /** Default: the system clock. */
  clock?: Clock;
}

/**
 * The scheduler (ARCHITECTURE.md §1): the leader-elected schedule engine. Connections first, so a
 * bad DATABASE_URL or NATS_URL fails the boot. Batch run dispatch arrives with the Batch API.
 */
@Module({})
export class SchedulerModule {
  static async forRoot(config: SchedulerConfig, logger: Logger, options: SchedulerModuleOptions = {}): Promise<DynamicModule> {
    const dataSource = await createDataSource({
      url: config.DATABASE_URL,
      poolSize: config.DB_POOL_SIZE,
      applicationName: 'trawl-scheduler',
    }).initialize();
    const db = new Database(dataSource, (error) => logger.warn({ err: error }, 'idle database connection lost'));
    const messaging = await MessagingConnection.connect({ servers: config.NATS_URL, name: 'scheduler' });
    const events = crawlMessagingDefinitions(messagingTopology(config.NATS_PREFIX)).streams.filter((s) =>
      s.name.endsWith('_EVENTS'),
    );
    for (const stream of events) await ensureStream(messaging.jsm, stream);
    const registry = createMetricsRegistry('scheduler');
    const settings: SchedulerSettings = {
      leaseName: SCHEDULE_LEASE_NAME,
      instanceId: config.SCHEDULER_INSTANCE_ID ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
      leaseTtlMs: config.SCHEDULER_LEASE_TTL_MS,
      renewIntervalMs: config.SCHEDULER_RENEW_INTERVAL_MS,
      pollIntervalMs: config.SCHEDULE_POLL_INTERVAL_MS,
      missedGraceMs: config.SCHEDULE_MISSED_GRACE_MS,
      batchSize: config.SCHEDULE_BATCH,
    };
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
      providers: [
        { provide: Database, useValue: db },
        { provide: SCHEDULER_MESSAGING, useValue: messaging },
        { provide: SCHEDULER_SETTINGS, useValue: settings },
        { provide: SCHEDULER_LOGGER, useValue: logger },
        { provide: SCHEDULER_CLOCK, useValue: options.clock ?? systemClock },
        { provide: RUN_STARTER, useValue: options.runStarter ?? new BatchRunStarter() },
        { provide: SchedulerMetrics, useValue: new SchedulerMetrics(registry) },
        LeaseRepository,
        LeaderElection,
        SchedulesRepository,
        ScheduleFiringService,
        SchedulerRuntime,
      ],
    };
  }
}
