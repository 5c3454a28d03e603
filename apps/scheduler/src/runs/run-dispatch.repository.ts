import type { ServedExtractRecipe } from '@trawl/fetch-params';
import { Injectable } from '@nestjs/common';
import type { RunStatus } from '@trawl/contracts';
import {
  type JobRunsRow,
  type JobsRow,
  type JobTasksRow,
  queuedTasksUpTo,
  runHasQueuedTask,
  type RunInFlightStatus,
  type RunTasksRow,
  RUNS_IN_FLIGHT,
  type Sql,
  type TenantsRow,
} from '@trawl/persistence';
import type { StoredSolverKey } from '@trawl/webhooks';
import type { ClaimedTask } from './batch-task-of';
import type { DispatchableRun } from './dispatch-plan';

/** A run with queued tasks, with what decides whether its tenant may go on. */
export interface CandidateRun extends DispatchableRun {
  concurrency: number;
  /** Subscription not active, or the plan lacks the batch product: the run cannot go on. */
  accountInactive: boolean;
  /** The period's credits are spent (and the period has not ended, which would renew them). */
  outOfCredits: boolean;
}

/** The statuses of a run that may dispatch (never paused, stopped or ended). */
type DispatchingRunStatus = Extract<RunStatus, 'queued' | 'running'>;

/** A run that may dispatch (locked by the transaction that claims from it), with what its tasks share. */
export interface LockedRun {
  id: string;
  jobId: string;
  tenantId: string;
  status: DispatchingRunStatus;
  traceParent: string | null;
  jobParams: Record<string, unknown>;
}

/** What an intake reads to fill a tenant's freed slots (`RunDispatchRepository.refillInputs`). */
export interface RefillInputs {
  tenant: TenantDispatchInputs;
  /** Batch tasks dispatched with a live lease across every tenant. */
  inFlight: number;
  accountInactive: boolean;
  outOfCredits: boolean;
  /** The tenant's runs that may dispatch and have queued tasks, oldest first: at most two. */
  runs: LockedRun[];
}

export interface TenantDispatchInputs {
  concurrency: number;
  /** The tenant's batch tasks dispatched with a live lease (read under the dispatch lock). */
  busy: number;
  planFeatures: string[];
  planProducts: string[];
  /** The key as stored (sealed, or plaintext from before sealing): the dispatcher opens it. */
  captchaSolver: { endpoint: string; key: StoredSolverKey } | null;
}

/**
 * Batch tasks dispatched with a live lease, by run, read from the `run_tasks_dispatched` index alone.
 * Materialized, so it is planned on its own: joined to a tenant's runs, the planner (whose row
 * counts of `run_tasks` lag behind a run's progress) ANDed it with a scan of every task of the run in
 * the primary key, a cost that grew with the run (1 ms per statement at 10,000 tasks, twice a round).
 * Their number is bounded by the dispatch window.
 */
const LIVE_CLAIMS = `live AS MATERIALIZED (
  SELECT run_id FROM run_tasks WHERE state = 'dispatched' AND lease_until > now()
)`;

/** Whether the account of tenant `t` can pay for batch tasks: not when its subscription or plan lacks them, nor its period's credits are spent. */
const ACCOUNT_STATE = `(t.subscription_status <> 'active' OR NOT ('batch' = ANY (t.plan_products))) AS account_inactive,
       (t.credits_used >= t.credits_limit AND t.period_ends_at > now()) AS out_of_credits`;

/** A tenant's dispatch inputs as selected from `tenants t` beside {@link LIVE_CLAIMS}. */
const TENANT_INPUTS = `t.concurrency, t.plan_features, t.plan_products, t.captcha_solver_endpoint, t.captcha_solver_key,
       t.captcha_solver_key_sealed, (SELECT count(*)::int FROM live JOIN job_runs r ON r.id = live.run_id WHERE r.tenant_id = t.id) AS busy`;

type TenantInputsRow = Pick<
  TenantsRow,
  'concurrency' | 'plan_features' | 'plan_products' | 'captcha_solver_endpoint' | 'captcha_solver_key' | 'captcha_solver_key_sealed'
> & { busy: number };

function tenantInputsOf(row: TenantInputsRow): TenantDispatchInputs {
  const solver =
    row.captcha_solver_endpoint && (row.captcha_solver_key_sealed || row.captcha_solver_key)
      ? { endpoint: row.captcha_solver_endpoint, key: { sealed: row.captcha_solver_key_sealed, plaintext: row.captcha_solver_key } }
      : null;
  return {
    concurrency: row.concurrency,
    busy: row.busy,
    planFeatures: row.plan_features,
    planProducts: row.plan_products,
    captchaSolver: solver,
  };
}

/**
 * SQL that takes the dispatch lock of the tenant whose id `tenantId` (an SQL expression) names, for
 * the transaction, and answers whether it did: never waited for, so no order of taking it can
 * deadlock. Every holder of a tenant's dispatch lock takes it this way.
 */
export function tryTenantDispatchLock(tenantId: string): string {
  return `pg_try_advisory_xact_lock(hashtextextended('batch-dispatch:' || ${tenantId}::text, 0))`;
}

/** SQL of batch dispatch: candidates, the per-tenant dispatch lock, claims. Rules live in the dispatcher. */
@Injectable()
export class RunDispatchRepository {
  /** Runs not over, every tenant's, by status (the `job_runs_active` partial index covers it). */
  async countInFlight(sql: Sql): Promise<Record<RunInFlightStatus, number>> {
    const rows = await sql.query<{ status: RunInFlightStatus; n: number }>(
      `SELECT status, count(*)::int AS n FROM job_runs WHERE status = ANY($1::text[]) GROUP BY status`,
      [RUNS_IN_FLIGHT],
    );
    const counts = { queued: 0, running: 0, paused: 0 };
    for (const row of rows) counts[row.status] = row.n;
    return counts;
  }

  /**
   * Runs queued or running, whose job is fully ingested, with queued tasks; oldest first. Queued
   * tasks are counted up to the round's `budget` or the tenant's concurrency, whichever is less: a
   * round never claims more of a run, and each counted row is an index and heap visit (a count up
   * to 1,000 per run and round was the largest part of a round's cost with one big run).
   */
  async candidates(sql: Sql, limit: number, budget: number): Promise<CandidateRun[]> {
    const rows = await sql.prepared<
      Pick<JobRunsRow, 'tenant_id'> &
        Pick<TenantsRow, 'concurrency'> & { run_id: JobRunsRow['id']; queued: number; account_inactive: boolean; out_of_credits: boolean }
    >(
      'dispatch_candidates',
      `SELECT r.id AS run_id, r.tenant_id, t.concurrency,
              ${queuedTasksUpTo('r.id', 'LEAST($2::int, t.concurrency)')} AS queued,
              ${ACCOUNT_STATE}
         FROM job_runs r
         JOIN jobs j ON j.id = r.job_id
         JOIN tenants t ON t.id = r.tenant_id
        WHERE r.status IN ('queued', 'running') AND j.ingest_state = 'ready'
          AND ${runHasQueuedTask('r.id')}
        ORDER BY r.created_at, r.id
        LIMIT $1`,
      [limit, budget],
    );
    return rows.map((r) => ({
      runId: r.run_id,
      tenantId: r.tenant_id,
      queued: r.queued,
      concurrency: r.concurrency,
      accountInactive: r.account_inactive,
      outOfCredits: r.out_of_credits,
    }));
  }

  /** Batch tasks dispatched with a live lease, per tenant (all tenants when `tenantIds` is omitted, keyed ''). */
  async inFlightByTenant(sql: Sql, tenantIds: string[]): Promise<Map<string, number>> {
    const rows = await sql.prepared<{ tenant_id: string; n: number }>(
      'dispatch_in_flight_by_tenant',
      `WITH ${LIVE_CLAIMS}
       SELECT r.tenant_id, count(*)::int AS n
         FROM live JOIN job_runs r ON r.id = live.run_id
        WHERE r.tenant_id = ANY ($1::uuid[])
        GROUP BY r.tenant_id`,
      [tenantIds],
    );
    return new Map(rows.map((r) => [r.tenant_id, r.n]));
  }

  /** Batch tasks dispatched with a live lease, across every tenant, counted up to `cap`. */
  async inFlight(sql: Sql, cap: number): Promise<number> {
    const [row] = await sql.prepared<{ n: number }>(
      'dispatch_in_flight',
      `SELECT count(*)::int AS n FROM (SELECT 1 FROM run_tasks WHERE state = 'dispatched' AND lease_until > now() LIMIT $1) x`,
      [cap],
    );
    return row.n;
  }

  /** The recipes that serve these registrable domains for `extract=auto` (domains not served are absent). */
  async servedRecipes(sql: Sql, domains: string[]): Promise<Map<string, ServedExtractRecipe>> {
    const rows = await sql.query<{ domain: string; recipe_version: number; needs_render: boolean }>(
      `SELECT domain, recipe_version, needs_render FROM extract_domains WHERE domain = ANY ($1::text[]) AND recipe_version IS NOT NULL`,
      [domains],
    );
    return new Map(rows.map((r) => [r.domain, { domain: r.domain, version: r.recipe_version, needsRender: r.needs_render }]));
  }

  /**
   * Takes the tenant's dispatch lock for the transaction, or answers false when another scheduler
   * replica holds it: one dispatcher at a time counts and fills a tenant's concurrency.
   */
  async tryLockTenant(sql: Sql, tenantId: string): Promise<boolean> {
    const [row] = await sql.prepared<{ locked: boolean }>('dispatch_lock_tenant', `SELECT ${tryTenantDispatchLock('$1')} AS locked`, [
      tenantId,
    ]);
    return row.locked;
  }

  /** The tenant's dispatch settings with its tasks in flight, in one statement (call it after `tryLockTenant`). */
  async tenantInputs(sql: Sql, tenantId: string): Promise<TenantDispatchInputs | undefined> {
    const [row] = await sql.prepared<TenantInputsRow>(
      'dispatch_tenant_inputs',
      `WITH ${LIVE_CLAIMS}
       SELECT ${TENANT_INPUTS} FROM tenants t WHERE t.id = $1`,
      [tenantId],
    );
    return row && tenantInputsOf(row);
  }

  /**
   * What filling a tenant's freed slots in an intake needs, in one statement (call it once the
   * tenant's dispatch lock is held, in a later statement than the one that took it, so that its
   * snapshot sees every claim made under the lock before; in the intake transaction that holds the runs of its results): the tenant's
   * inputs, its account's state, the batch tasks in flight across every tenant, and its runs that
   * may dispatch with queued tasks, oldest first, at most two (whether there is one is the question).
   * The runs are read, not locked: those a refill claims from are the intake's, locked since its start.
   */
  async refillInputs(sql: Sql, tenantId: string): Promise<RefillInputs | undefined> {
    const [row] = await sql.prepared<
      TenantInputsRow & {
        in_flight: number;
        account_inactive: boolean;
        out_of_credits: boolean;
        runs: {
          id: string;
          job_id: string;
          status: DispatchingRunStatus;
          trace_parent: string | null;
          service_params: Record<string, unknown> | null;
        }[];
      }
    >(
      'dispatch_refill_inputs',
      `WITH ${LIVE_CLAIMS},
       waiting AS (
         SELECT r.id, r.job_id, r.status, r.trace_parent, j.service_params
           FROM job_runs r JOIN jobs j ON j.id = r.job_id
          WHERE r.tenant_id = $1 AND r.status IN ('queued', 'running') AND j.ingest_state = 'ready'
            AND ${runHasQueuedTask('r.id')}
          ORDER BY r.created_at, r.id
          LIMIT 2
       )
       SELECT ${TENANT_INPUTS},
              (SELECT count(*)::int FROM live) AS in_flight,
              ${ACCOUNT_STATE},
              coalesce((SELECT json_agg(waiting) FROM waiting), '[]'::json) AS runs
         FROM tenants t WHERE t.id = $1`,
      [tenantId],
    );
    if (!row) return undefined;
    return {
      tenant: tenantInputsOf(row),
      inFlight: row.in_flight,
      accountInactive: row.account_inactive,
      outOfCredits: row.out_of_credits,
      runs: row.runs.map((r) => ({
        id: r.id,
        jobId: r.job_id,
        tenantId,
        status: r.status,
        traceParent: r.trace_parent,
        jobParams: r.service_params ?? {},
      })),
    };
  }

  /**
   * Locks the tenant's runs that may still dispatch (queued or running: never paused, stopped or
   * ended), in id order like every writer of runs. A stop or pause committed before this sees the
   * run leave; one that comes after waits for this transaction, so its claims are the last.
   */
  async lockRuns(sql: Sql, tenantId: string, runIds: string[]): Promise<LockedRun[]> {
    const rows = await sql.prepared<
      Pick<JobRunsRow, 'id' | 'job_id' | 'tenant_id' | 'trace_parent'> & Pick<JobsRow, 'service_params'> & { status: DispatchingRunStatus }
    >(
      'dispatch_lock_runs',
      `SELECT r.id, r.job_id, r.tenant_id, r.status, r.trace_parent, j.service_params
         FROM job_runs r JOIN jobs j ON j.id = r.job_id
        WHERE r.tenant_id = $1 AND r.id = ANY ($2::uuid[]) AND r.status IN ('queued', 'running')
        ORDER BY r.id
        FOR UPDATE OF r`,
      [tenantId, runIds],
    );
    return rows.map((r) => ({
      id: r.id,
      jobId: r.job_id,
      tenantId: r.tenant_id,
      status: r.status,
      traceParent: r.trace_parent,
      jobParams: r.service_params ?? {},
    }));
  }

  /** Claims up to `limit` queued tasks of a locked run in seq order: new attempt, lease; with their job task's fields. */
  async claim(sql: Sql, run: { id: string; jobId: string }, limit: number, leaseMs: number): Promise<ClaimedTask[]> {
    if (limit <= 0) return [];
    const rows = await sql.prepared<
      Pick<RunTasksRow, 'seq' | 'attempt'> & Pick<JobTasksRow, 'url' | 'method' | 'body' | 'service_params'> & { lease_until_ms: string }
    >(
      'dispatch_claim',
      `WITH picked AS (
         SELECT seq FROM run_tasks WHERE run_id = $1 AND state = 'queued' ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED
       )
       UPDATE run_tasks rt
          SET state = 'dispatched', attempt = rt.attempt + 1, started_at = now(),
              lease_until = now() + make_interval(secs => $3::double precision / 1000)
         FROM picked, job_tasks jt
        WHERE rt.run_id = $1 AND rt.seq = picked.seq AND jt.job_id = $4 AND jt.seq = rt.seq
        RETURNING rt.seq, rt.attempt, (extract(epoch FROM rt.lease_until) * 1000)::bigint::text AS lease_until_ms,
                  jt.url, jt.method, jt.body, jt.service_params`,
      [run.id, limit, leaseMs, run.jobId],
    );
    return rows
      .map((r) => ({
        seq: r.seq,
        attempt: r.attempt,
        leaseUntilMs: Number(r.lease_until_ms),
        url: r.url,
        method: r.method,
        body: r.body,
        serviceParams: r.service_params,
      }))
      .sort((a, b) => a.seq - b.seq);
  }

  /** A run that dispatched its first tasks is running from now. */
  async markRunning(sql: Sql, runIds: string[]): Promise<string[]> {
    if (runIds.length === 0) return [];
    const rows = await sql.prepared<{ id: string }>(
      'dispatch_mark_running',
      `UPDATE job_runs SET status = 'running', started_at = coalesce(started_at, now())
        WHERE id = ANY ($1::uuid[]) AND status = 'queued' RETURNING id`,
      [runIds],
    );
    return rows.map((r) => r.id);
  }
}
