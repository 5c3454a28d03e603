import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { DynamicModule, Module } from '@nestjs/common';
import { Logger } from '@trawl/observability';
import { Clock, systemClock } from '@trawl/scheduling';
import { MessagingConnection, StreamedRpcClient } from '@trawl/messaging';
import { connectService, SERVICE_MESSAGING, stopDeadlinesOf } from '@trawl/service-kit';
import { SchedulerConfig } from './config';
import { DomainPreparationService } from './extract-preparations/domain-preparation.service';
import { PreparationConsumer } from './extract-preparations/preparation.consumer';
import { PreparationFetcher } from './extract-preparations/preparation-fetcher';
import { PreparationSweepService } from './extract-preparations/preparation-sweep.service';
import { PREPARATION_SETTINGS, PreparationSettings } from './extract-preparations/preparation.settings';
import { PreparationsRepository } from './extract-preparations/preparations.repository';
import { PreparationsMetrics } from './extract-preparations/preparations.metrics';
import { PreparationsRuntime } from './extract-preparations/preparations.runtime';
import { NatsRecipeStore, PREPARATION_RECIPES } from './extract-preparations/recipe-store';
import { LeaderElection } from './leadership/leader-election';
import { LeaseRepository } from './leadership/lease.repository';
import { BatchRunStarter } from './runs/batch-run-starter';
import { RunDispatchRepository } from './runs/run-dispatch.repository';
import { RunDispatcherService } from './runs/run-dispatcher.service';
import { RunExecutionRepository } from './runs/run-execution.repository';
import { RunReconcilerService } from './runs/run-reconciler.service';
import { RetentionRepository } from './retention/retention.repository';
import { RetentionSweepService } from './retention/retention-sweep.service';
import { RETENTION_SETTINGS, RetentionSettings } from './retention/retention.settings';
import { RunIntakeService } from './runs/run-intake.service';
import { RunResultConsumer } from './runs/run-result.consumer';
import { RunResultsService } from './runs/run-results.service';
import { RunsMetrics } from './runs/runs.metrics';
import { RunsRuntime } from './runs/runs.runtime';
import { RUNS_SETTINGS, RunsSettings } from './runs/runs.settings';
import { UnconfirmedResults } from './runs/unconfirmed-results';
import { RUN_STARTER, RunStarter } from './schedules/run-starter';
import { ScheduleFiringService } from './schedules/schedule-firing.service';
import { SchedulesRepository } from './schedules/schedules.repository';
import { SchedulerMetrics } from './scheduler.metrics';
import { SchedulerRuntime } from './scheduler.runtime';
import { SCHEDULE_LEASE_NAME, SCHEDULER_CLOCK, SCHEDULER_SETTINGS, SchedulerSettings } from './scheduler.settings';

/** What the scheduler is built with besides its config. */
export interface SchedulerModuleOptions {
  /** How firings start runs (default: runs of batch jobs, `BatchRunStarter`). */
  runStarter?: RunStarter;
  /** Default: the system clock. */
  clock?: Clock;
}

/** Attempts of a batch task before it fails with `ERR0001` (the lease ran out each time). */
const BATCH_TASK_MAX_ATTEMPTS = 3;

/**
 * The scheduler: the leader-elected schedule engine, and batch run execution
 * (dispatch, result intake, reconciler) on every replica. Connections first, so a bad DATABASE_URL
 * or NATS_URL fails the boot.
 */
@Module({})
export class SchedulerModule {
  static async forRoot(config: SchedulerConfig, logger: Logger, options: SchedulerModuleOptions = {}): Promise<DynamicModule> {
    const service = await connectService({
      name: 'scheduler',
      config,
      logger,
      database: { url: config.DATABASE_URL, poolSize: config.DB_POOL_SIZE },
      messaging: (topology) => ({
        streams: [
          topology.streams.events,
          topology.streams.batchWork,
          topology.streams.batchResults,
          topology.streams.batchBodies,
          topology.streams.extractPreparations,
        ],
        consumers: [topology.consumers.batchSchedulers, topology.consumers.extractPreparers],
      }),
    });
    const stopDeadlines = stopDeadlinesOf(config.SHUTDOWN_TIMEOUT_MS);
    const settings: SchedulerSettings = {
      leaseName: SCHEDULE_LEASE_NAME,
      instanceId: config.SCHEDULER_INSTANCE_ID ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`,
      leaseTtlMs: config.SCHEDULER_LEASE_TTL_MS,
      renewIntervalMs: config.SCHEDULER_RENEW_INTERVAL_MS,
      pollIntervalMs: config.SCHEDULE_POLL_INTERVAL_MS,
      missedGraceMs: config.SCHEDULE_MISSED_GRACE_MS,
      batchSize: config.SCHEDULE_BATCH,
      stopDeadlines,
    };
    const runsSettings: RunsSettings = {
      topology: service.topology,
      dispatchPollMs: config.BATCH_DISPATCH_POLL_MS,
      dispatchBatch: config.BATCH_DISPATCH_BATCH,
      dispatchWindow: config.BATCH_DISPATCH_WINDOW,
      leaseMs: config.BATCH_TASK_LEASE_MS,
      taskTimeoutMs: config.BATCH_TASK_TIMEOUT_MS,
      maxBodyBytes: config.BATCH_MAX_BODY_BYTES,
      maxAttempts: BATCH_TASK_MAX_ATTEMPTS,
      reconcileIntervalMs: config.BATCH_RECONCILE_INTERVAL_MS,
      resultBatch: config.BATCH_RESULT_BATCH,
      resultWaitMs: config.BATCH_RESULT_WAIT_MS,
      dispatchLingerMs: config.BATCH_DISPATCH_LINGER_MS,
      refillOnIntake: config.BATCH_REFILL_ON_INTAKE,
      tasksPerMessage: config.BATCH_TASK_GROUP_SIZE,
      creditPriceUsd: config.FETCH_CREDIT_PRICE_USD,
      forbiddenDomains: config.FETCH_FORBIDDEN_DOMAINS,
      secrets: config.SECRETS_KEY,
      stopDeadlines,
    };
    const preparationSettings: PreparationSettings = {
      topology: service.topology,
      concurrency: config.PREPARE_CONCURRENCY,
      maxPages: config.PREPARE_MAX_PAGES,
      fetchIntervalMs: config.PREPARE_FETCH_INTERVAL_MS,
      maxFetchingMs: config.PREPARE_MAX_FETCHING_MS,
      pageTimeoutMs: config.PREPARE_PAGE_TIMEOUT_MS,
      leaseMs: config.PREPARE_LEASE_MS,
      maxDeliveries: config.PREPARE_MAX_DELIVERIES,
      sweepIntervalMs: config.PREPARE_SWEEP_INTERVAL_MS,
      maxBodyBytes: config.BATCH_MAX_BODY_BYTES,
      stopDeadlines,
    };
    const retentionSettings: RetentionSettings = {
      sweepIntervalMs: config.RETENTION_SWEEP_INTERVAL_MS,
      expiredKeptMs: config.RETENTION_EXPIRED_KEPT_MS,
      batchSize: config.RETENTION_BATCH,
    };
    return {
      module: SchedulerModule,
      imports: [service.health],
      providers: [
        ...service.providers,
        { provide: SCHEDULER_SETTINGS, useValue: settings },
        { provide: SCHEDULER_CLOCK, useValue: options.clock ?? systemClock },
        { provide: RUN_STARTER, useValue: options.runStarter ?? new BatchRunStarter() },
        { provide: SchedulerMetrics, useValue: new SchedulerMetrics(service.registry) },
        { provide: RUNS_SETTINGS, useValue: runsSettings },
        { provide: RunsMetrics, useValue: new RunsMetrics(service.registry) },
        { provide: RETENTION_SETTINGS, useValue: retentionSettings },
        { provide: PREPARATION_SETTINGS, useValue: preparationSettings },
        {
          provide: PreparationFetcher,
          inject: [SERVICE_MESSAGING],
          useFactory: (messaging: MessagingConnection) =>
            new PreparationFetcher({
              rpc: new StreamedRpcClient(messaging.nc),
              subject: service.topology.subjects.fetchRequest,
              timeoutMs: preparationSettings.pageTimeoutMs,
              maxBodyBytes: preparationSettings.maxBodyBytes,
            }),
        },
        {
          provide: PREPARATION_RECIPES,
          inject: [SERVICE_MESSAGING],
          useFactory: (messaging: MessagingConnection) =>
            new NatsRecipeStore(messaging.js, service.topology.kv.extractRecipes, service.topology.replicas),
        },
        { provide: PreparationsMetrics, useValue: new PreparationsMetrics(service.registry) },
        PreparationsRepository,
        DomainPreparationService,
        PreparationConsumer,
        PreparationSweepService,
        PreparationsRuntime,
        RetentionRepository,
        RetentionSweepService,
        RunDispatchRepository,
        RunExecutionRepository,
        RunResultsService,
        RunDispatcherService,
        RunIntakeService,
        RunResultConsumer,
        UnconfirmedResults,
        RunReconcilerService,
        RunsRuntime,
        LeaseRepository,
        LeaderElection,
        SchedulesRepository,
        ScheduleFiringService,
        SchedulerRuntime,
      ],
    };
  }
}
