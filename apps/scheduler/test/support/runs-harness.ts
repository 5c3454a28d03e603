import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Registry } from 'prom-client';
import { batchMessagingDefinitions, crawlMessagingDefinitions, messagingTopology, MessagingTopology } from '@trawl/contracts';
import { deleteStreams, ensureConsumer, ensureStream, MessagingConnection } from '@trawl/messaging';
import { createDataSource, Database, RunsRepository, Sql } from '@trawl/persistence';
import { stopDeadlinesOf } from '@trawl/service-kit';
import { uniqueSuffix } from '@trawl/testing';
import { RunDispatchRepository } from '../../src/runs/run-dispatch.repository';
import { RunDispatcherService } from '../../src/runs/run-dispatcher.service';
import { RunExecutionRepository } from '../../src/runs/run-execution.repository';
import { RunReconcilerService } from '../../src/runs/run-reconciler.service';
import { RunIntakeService } from '../../src/runs/run-intake.service';
import { RunResultConsumer } from '../../src/runs/run-result.consumer';
import { UnconfirmedResults } from '../../src/runs/unconfirmed-results';
import { RunResultsService } from '../../src/runs/run-results.service';
import { RunsMetrics } from '../../src/runs/runs.metrics';
import { RunsRuntime } from '../../src/runs/runs.runtime';
import { RunsSettings } from '../../src/runs/runs.settings';

export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';

export function runsSettings(topology: MessagingTopology, overrides: Partial<RunsSettings> = {}): RunsSettings {
  return {
    topology,
    dispatchPollMs: 20,
    dispatchBatch: 256,
    dispatchWindow: 1024,
    leaseMs: 60_000,
    taskTimeoutMs: 10_000,
    maxBodyBytes: 10 * 1024 * 1024,
    maxAttempts: 3,
    reconcileIntervalMs: 100,
    resultBatch: 64,
    resultWaitMs: 10,
    dispatchLingerMs: 10,
    refillOnIntake: true,
    tasksPerMessage: 8,
    creditPriceUsd: 0.0001,
    forbiddenDomains: [],
    stopDeadlines: stopDeadlinesOf(10_000),
    ...overrides,
  };
}

/** One scheduler replica's batch execution, on its own pool and NATS connection. */
export interface RunsInstance {
  db: Database;
  messaging: MessagingConnection;
  dispatcher: RunDispatcherService;
  results: RunResultsService;
  /** The intake transaction (results, and the freed slots filled again). */
  taking: RunIntakeService;
  intake: RunResultConsumer;
  reconciler: RunReconcilerService;
  runtime: RunsRuntime;
  close(): Promise<void>;
}

/** Creates the events stream, the batch streams and their durables of `prefix` (as SchedulerModule does at boot). */
export async function provisionBatch(messaging: MessagingConnection, topology: MessagingTopology): Promise<void> {
  for (const stream of crawlMessagingDefinitions(topology).streams.filter((s) => s.name === topology.streams.events)) {
    await ensureStream(messaging.jsm, stream);
  }
  const definitions = batchMessagingDefinitions(topology);
  for (const stream of definitions.streams) await ensureStream(messaging.jsm, stream);
  for (const consumer of definitions.consumers) await ensureConsumer(messaging.jsm, consumer);
}

export async function removeBatchStreams(prefix: string): Promise<void> {
  const messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'runs-test-cleanup' });
  await deleteStreams(messaging.jsm, Object.values(messagingTopology(prefix).streams));
  await messaging.close();
}

export async function startRunsInstance(url: string, settings: RunsSettings): Promise<RunsInstance> {
  const dataSource = await createDataSource({ url, poolSize: 4, applicationName: `test-runs-${uniqueSuffix()}` }).initialize();
  const db = new Database(dataSource);
  const messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'runs-test' });
  await provisionBatch(messaging, settings.topology);
  const logger = pino({ level: 'silent' });
  const metrics = new RunsMetrics(new Registry());
  const execution = new RunExecutionRepository();
  const results = new RunResultsService(db, execution, metrics, settings, logger);
  const dispatcher = new RunDispatcherService(db, new RunDispatchRepository(), results, metrics, messaging, settings, logger);
  const unconfirmed = new UnconfirmedResults(db, execution, logger);
  const taking = new RunIntakeService(db, results, dispatcher, metrics, settings);
  const intake = new RunResultConsumer(taking, messaging, settings, logger, unconfirmed);
  const reconciler = new RunReconcilerService(db, execution, results, metrics, settings, logger, messaging, unconfirmed);
  const runtime = new RunsRuntime(db, dispatcher, intake, reconciler, messaging, settings, logger);
  return {
    db,
    messaging,
    dispatcher,
    results,
    taking,
    intake,
    reconciler,
    runtime,
    async close() {
      await runtime.stop();
      await intake.stop(0);
      await messaging.close();
      await dataSource.destroy();
    },
  };
}

export async function createTenant(sql: Sql, concurrency: number, overrides: { creditsLimit?: number } = {}): Promise<string> {
  const [row] = await sql.query<{ id: string }>(
    `INSERT INTO tenants (name, credits_limit, concurrency, max_active_jobs, period_ends_at)
     VALUES ($1, $2, $3, 3, now() + interval '30 days') RETURNING id`,
    [`tenant-${uniqueSuffix()}`, overrides.creditsLimit ?? 1_000_000, concurrency],
  );
  return row.id;
}

export interface JobFixture {
  jobId: string;
  runId: string;
}

/** A closed job with these task URLs and its first run, queued, as the gateway writes them. */
export async function createJobWithRun(
  db: Database,
  tenantId: string,
  urls: string[],
  options: { serviceParams?: Record<string, unknown>; webhook?: { url: string; signature: boolean } } = {},
): Promise<JobFixture> {
  const jobId = randomUUID();
  const runId = randomUUID();
  await db.transaction(async (sql) => {
    await sql.query(
      `INSERT INTO jobs (id, tenant_id, type, status, service_params, webhook_url, webhook_signature, task_count)
       VALUES ($1, $2, 'regular', 'closed', $3, $4, $5, $6)`,
      [
        jobId,
        tenantId,
        JSON.stringify(options.serviceParams ?? {}),
        options.webhook?.url ?? null,
        options.webhook?.signature ?? false,
        urls.length,
      ],
    );
    await sql.query(`INSERT INTO job_tasks (job_id, seq, url) SELECT $1, i, u FROM unnest($2::text[]) WITH ORDINALITY AS t (u, i)`, [
      jobId,
      urls,
    ]);
    const runs = new RunsRepository();
    await runs.insertRun(sql, { id: runId, jobId, tenantId, kind: 'initial', total: urls.length, traceParent: undefined });
    await runs.insertRunTasks(sql, runId, 1, urls.length);
  });
  return { jobId, runId };
}

export interface RunRow {
  status: string;
  total: number;
  successful: number;
  failed: number;
  credits: number;
  cost: number;
  started_at: Date | null;
  finished_at: Date | null;
}

export async function runRow(sql: Sql, runId: string): Promise<RunRow> {
  const [row] = await sql.query<RunRow & { credits: string; cost: string }>(
    `SELECT status, total, successful, failed, credits::text, cost::text, started_at, finished_at FROM job_runs WHERE id = $1`,
    [runId],
  );
  return { ...row, credits: Number(row.credits), cost: Number(row.cost) };
}

export async function taskStates(sql: Sql, runId: string): Promise<Record<string, number>> {
  const rows = await sql.query<{ state: string; n: number }>(
    `SELECT state, count(*)::int AS n FROM run_tasks WHERE run_id = $1 GROUP BY state`,
    [runId],
  );
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}
