import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { Registry } from 'prom-client';
import { Schedule, scheduleSchema } from '@trawl/contracts';
import { createLogger, Logger } from '@trawl/observability';
import { createDataSource, Database, Sql } from '@trawl/persistence';
import { Clock, scheduleOnReplace } from '@trawl/scheduling';
import { stopDeadlinesOf } from '@trawl/service-kit';
import { uniqueSuffix } from '@trawl/testing';
import { LeaderElection } from '../../src/leadership/leader-election';
import { LeaseRepository } from '../../src/leadership/lease.repository';
import { RunStarter, ScheduledRunRequest, ScheduledRunStart } from '../../src/schedules/run-starter';
import { ScheduleFiringService } from '../../src/schedules/schedule-firing.service';
import { SchedulesRepository } from '../../src/schedules/schedules.repository';
import { SchedulerMetrics } from '../../src/scheduler.metrics';
import { SchedulerSettings } from '../../src/scheduler.settings';

/** The test-only runs table the fake run starter writes (the Batch API's runs do not exist yet). */
export async function createTestRunsTable(pool: Pool): Promise<void> {
  await pool.query(`
    CREATE TABLE test_runs (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      job_id uuid NOT NULL,
      firing_id uuid NOT NULL UNIQUE,
      due_at timestamptz NOT NULL,
      status text NOT NULL CHECK (status IN ('running', 'completed'))
    )`);
}

/**
 * A minimal table-backed `RunStarter`: a run is a row of `test_runs`. Runs start `running` unless
 * `completeAtOnce`; `beforeStart` lets a test hold a firing's transaction open.
 */
export class TableRunStarter implements RunStarter {
  completeAtOnce = true;
  refuse?: 'quota_exceeded' | 'job_unavailable';
  beforeStart?: () => Promise<void>;

  async runInFlight(sql: Sql, job: { tenantId: string; jobId: string }): Promise<{ runId: string } | undefined> {
    const [row] = await sql.query<{ id: string }>(
      `SELECT id FROM test_runs WHERE tenant_id = $1 AND job_id = $2 AND status = 'running' LIMIT 1`,
      [job.tenantId, job.jobId],
    );
    return row && { runId: row.id };
  }

  async startScheduledRun(sql: Sql, request: ScheduledRunRequest): Promise<ScheduledRunStart> {
    await this.beforeStart?.();
    if (this.refuse) return { outcome: 'refused', reason: this.refuse };
    const id = randomUUID();
    await sql.query(`INSERT INTO test_runs (id, tenant_id, job_id, firing_id, due_at, status) VALUES ($1, $2, $3, $4, $5, $6)`, [
      id,
      request.tenantId,
      request.jobId,
      request.firingId,
      request.dueAt,
      this.completeAtOnce ? 'completed' : 'running',
    ]);
    return { outcome: 'started', runId: id };
  }
}

/** One scheduler replica's schedule engine, on its own pool, with its own clock. */
export interface SchedulerInstance {
  name: string;
  db: Database;
  settings: SchedulerSettings;
  logger: Logger;
  election: LeaderElection;
  firings: ScheduleFiringService;
  registry: Registry;
  /** Closes the pool; the lease is not released (a crash, as far as the lease can tell). */
  crash(): Promise<void>;
}

export const TEST_SETTINGS: Omit<SchedulerSettings, 'leaseName' | 'instanceId'> = {
  leaseTtlMs: 15_000,
  renewIntervalMs: 5_000,
  pollIntervalMs: 1_000,
  missedGraceMs: 3_600_000,
  batchSize: 100,
  stopDeadlines: stopDeadlinesOf(10_000),
};

export async function startInstance(
  url: string,
  leaseName: string,
  name: string,
  clock: Clock,
  runStarter: RunStarter,
  overrides: Partial<SchedulerSettings> = {},
): Promise<SchedulerInstance> {
  const dataSource = await createDataSource({ url, poolSize: 3, applicationName: `test-scheduler-${name}` }).initialize();
  const db = new Database(dataSource);
  const settings: SchedulerSettings = { ...TEST_SETTINGS, leaseName, instanceId: `${name}-${uniqueSuffix()}`, ...overrides };
  const logger = createLogger(`scheduler-${name}`, 'silent');
  const registry = new Registry();
  const metrics = new SchedulerMetrics(registry);
  const leases = new LeaseRepository();
  const election = new LeaderElection(db, leases, metrics, clock, settings, logger);
  const firings = new ScheduleFiringService(db, election, leases, new SchedulesRepository(), metrics, runStarter, clock, settings, logger);
  let closed = false;
  return {
    name,
    db,
    settings,
    logger,
    election,
    firings,
    registry,
    async crash() {
      if (closed) return;
      closed = true;
      if (dataSource.isInitialized) await dataSource.destroy();
    },
  };
}

export async function createTenant(sql: Sql): Promise<string> {
  const [row] = await sql.query<{ id: string }>(
    `INSERT INTO tenants (name, credits_limit, concurrency, max_active_jobs, period_ends_at)
     VALUES ($1, 1000000, 5, 3, now() + interval '30 days') RETURNING id`,
    [`tenant-${uniqueSuffix()}`],
  );
  return row!.id;
}

/** A job's schedule row as the gateway writes it on `POST /v1/jobs` at `now`. Returns the job id. */
export async function createSchedule(sql: Sql, tenantId: string, body: unknown, now: Date): Promise<string> {
  const schedule: Schedule = scheduleSchema.parse(body);
  const timing = scheduleOnReplace(schedule, undefined, now);
  const jobId = randomUUID();
  // job_schedules.job_id references jobs (migration 1764000000050).
  await sql.query(`INSERT INTO jobs (id, tenant_id, type, status, service_params) VALUES ($1, $2, 'scheduled', 'closed', '{}')`, [
    jobId,
    tenantId,
  ]);
  await sql.query(
    `INSERT INTO job_schedules (job_id, tenant_id, schedule, state, anchor_at, next_due_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [jobId, tenantId, schedule, timing.state, timing.anchorAt, timing.nextDueAt, now],
  );
  return jobId;
}

export interface FiringRow {
  due_at: string;
  outcome: string;
  run_id: string | null;
  leader_epoch: number;
}

export async function firingsOf(sql: Sql, tenantId: string, jobId: string): Promise<FiringRow[]> {
  const rows = await sql.query<{ due_at: Date; outcome: string; run_id: string | null; leader_epoch: string }>(
    `SELECT due_at, outcome, run_id, leader_epoch FROM schedule_firings WHERE tenant_id = $1 AND job_id = $2 ORDER BY due_at`,
    [tenantId, jobId],
  );
  return rows.map((row) => ({ ...row, due_at: new Date(row.due_at).toISOString(), leader_epoch: Number(row.leader_epoch) }));
}

export async function runsOf(sql: Sql, tenantId: string, jobId: string): Promise<{ id: string; due_at: string; firing_id: string }[]> {
  const rows = await sql.query<{ id: string; due_at: Date; firing_id: string }>(
    `SELECT id, due_at, firing_id FROM test_runs WHERE tenant_id = $1 AND job_id = $2 ORDER BY due_at`,
    [tenantId, jobId],
  );
  return rows.map((row) => ({ ...row, due_at: new Date(row.due_at).toISOString() }));
}
