import { Injectable } from '@nestjs/common';
import type { JobIngestState, JobStatus, JobType, RunKind, RunStatus, Schedule, ScheduleState } from '@trawl/contracts';
import { Database, type JobSchedulesRow, type JobsRow, type ScheduleFiringsRow, Sql } from '@trawl/persistence';
import type { JobTask } from './task-checks';
import type { ScheduleFiringRecord } from './schedule-firings.repository';

export interface RunRecord {
  id: string;
  jobId: string;
  runSequence: number;
  kind: RunKind;
  status: RunStatus;
  total: number;
  successful: number;
  failed: number;
  credits: number;
  /** `stats.spend.cost`: US dollars, added up by the scheduler at the price of each billing (as webhooks send it). */
  cost: number;
  failureReason: string | null;
  failureDetail: string | null;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export interface JobRecord {
  id: string;
  tenantId: string;
  type: JobType;
  status: JobStatus;
  serviceParams: Record<string, unknown>;
  webhookUrl: string | null;
  webhookSignature: boolean;
  ingestState: JobIngestState;
  /** The CSV input the job's tasks came from; `null` for inline tasks. */
  fileInputId: string | null;
  taskCount: number;
  createdAt: Date;
  /** `created_at` in microseconds since the epoch (exact), for list cursors. */
  createdAtMicros: string;
  latestRun: RunRecord | null;
  /** The `job_schedules` row of a scheduled job, with its latest firing. */
  schedule: (JobScheduleRecord & { lastFiring: ScheduleFiringRecord | null }) | null;
}

export interface JobScheduleRecord {
  schedule: Schedule;
  state: ScheduleState;
  anchorAt: Date;
  nextDueAt: Date | null;
}

export interface NewJob {
  id: string;
  tenantId: string;
  type: JobType;
  status: JobStatus;
  serviceParams: Record<string, unknown>;
  webhook: { url: string; signature: boolean } | null;
  idempotencyKey: string | null;
  fileInputId: string | null;
  taskCount: number;
  ingestState: JobIngestState;
}

export interface JobListFilter {
  status?: JobStatus;
  type?: JobType;
}

type JobColumn =
  | 'id'
  | 'tenant_id'
  | 'type'
  | 'status'
  | 'service_params'
  | 'webhook_url'
  | 'webhook_signature'
  | 'ingest_state'
  | 'file_input_id'
  | 'task_count'
  | 'created_at';

/** A job with its latest run (`r_…`), schedule (`s_…`) and latest firing (`f_…`), as `JOB_WITH_LATEST_RUN` selects it. */
interface JobRow extends Pick<JobsRow, JobColumn> {
  created_at_us: string;
  r_id: string | null;
  r_run_sequence: number | null;
  r_kind: RunKind | null;
  r_status: RunStatus | null;
  r_total: number | null;
  r_successful: number | null;
  r_failed: number | null;
  r_credits: string | null;
  r_cost: string | null;
  r_failure_reason: string | null;
  r_failure_detail: string | null;
  r_created_at: Date | null;
  r_started_at: Date | null;
  r_finished_at: Date | null;
  s_schedule: JobSchedulesRow['schedule'] | null;
  s_state: JobSchedulesRow['state'] | null;
  s_anchor_at: JobSchedulesRow['anchor_at'] | null;
  s_next_due_at: JobSchedulesRow['next_due_at'];
  f_due_at: ScheduleFiringsRow['due_at'] | null;
  f_due_at_us: string | null;
  f_fired_at: ScheduleFiringsRow['fired_at'] | null;
  f_outcome: ScheduleFiringsRow['outcome'] | null;
  f_run_id: ScheduleFiringsRow['run_id'];
}

const JOB_WITH_LATEST_RUN = `
  SELECT j.id, j.tenant_id, j.type, j.status, j.service_params, j.webhook_url, j.webhook_signature,
         j.ingest_state, j.file_input_id, j.task_count, j.created_at,
         (extract(epoch FROM j.created_at) * 1000000)::bigint::text AS created_at_us,
         r.id AS r_id, r.run_sequence AS r_run_sequence, r.kind AS r_kind, r.status AS r_status,
         r.total AS r_total, r.successful AS r_successful, r.failed AS r_failed, r.credits::text AS r_credits, r.cost::text AS r_cost,
         r.failure_reason AS r_failure_reason, r.failure_detail AS r_failure_detail,
         r.created_at AS r_created_at, r.started_at AS r_started_at, r.finished_at AS r_finished_at,
         s.schedule AS s_schedule, s.state AS s_state, s.anchor_at AS s_anchor_at, s.next_due_at AS s_next_due_at,
         f.due_at AS f_due_at, (extract(epoch FROM f.due_at) * 1000000)::bigint::text AS f_due_at_us,
         f.fired_at AS f_fired_at, f.outcome AS f_outcome, f.run_id AS f_run_id
    FROM jobs j LEFT JOIN job_runs r ON r.id = j.latest_run_id LEFT JOIN job_schedules s ON s.job_id = j.id
    -- The latest firing, skipped or not: one probe of schedule_firings_tenant_job per scheduled job.
    LEFT JOIN LATERAL (
      SELECT due_at, fired_at, outcome, run_id FROM schedule_firings
       WHERE tenant_id = j.tenant_id AND job_id = s.job_id ORDER BY due_at DESC LIMIT 1
    ) f ON true`;

/** Rows written per INSERT of tasks: big enough to be fast, small enough for Postgres's 65,535 parameters. */
const TASK_ROWS_PER_STATEMENT = 5_000;

/** SQL of jobs, their tasks and runs. Every read of a tenant's data takes the tenant. */
@Injectable()
export class JobsRepository {
  constructor(private readonly db: Database) {}

  /** The id of the tenant's job created with this idempotency key; undefined when none was. */
  async findJobIdByIdempotencyKey(sql: Sql, tenantId: string, idempotencyKey: string): Promise<string | undefined> {
    const rows = await sql.query<{ id: string }>(`SELECT id FROM jobs WHERE tenant_id = $1 AND idempotency_key = $2`, [
      tenantId,
      idempotencyKey,
    ]);
    return rows[0]?.id;
  }

  /** Inserts the job; false when its idempotency key was used before (one use per key). */
  async insertJob(sql: Sql, job: NewJob): Promise<boolean> {
    const rows = await sql.query(
      `INSERT INTO jobs (id, tenant_id, type, status, service_params, webhook_url, webhook_signature,
                         idempotency_key, task_count, ingest_state, file_input_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
       RETURNING id`,
      [
        job.id,
        job.tenantId,
        job.type,
        job.status,
        JSON.stringify(job.serviceParams),
        job.webhook?.url ?? null,
        job.webhook?.signature ?? false,
        job.idempotencyKey,
        job.taskCount,
        job.ingestState,
        job.fileInputId,
      ],
    );
    return rows.length === 1;
  }

  /** Appends tasks numbered from `firstSeq`, a few thousand rows per statement. */
  async insertTasks(sql: Sql, jobId: string, firstSeq: number, tasks: readonly JobTask[]): Promise<void> {
    for (let start = 0; start < tasks.length; start += TASK_ROWS_PER_STATEMENT) {
      const chunk = tasks.slice(start, start + TASK_ROWS_PER_STATEMENT);
      await sql.query(
        `INSERT INTO job_tasks (job_id, seq, url, method, body, external_id, metadata, service_params)
         SELECT $1, t.seq, t.url, t.method, t.body, t.external_id, t.metadata, t.service_params
           FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::jsonb[], $8::jsonb[])
                AS t (seq, url, method, body, external_id, metadata, service_params)`,
        [
          jobId,
          chunk.map((_, i) => firstSeq + start + i),
          chunk.map((t) => t.url),
          chunk.map((t) => t.method),
          chunk.map((t) => t.body),
          chunk.map((t) => t.externalId),
          chunk.map((t) => (t.metadata === null ? null : JSON.stringify(t.metadata))),
          chunk.map((t) => (t.serviceParams === null ? null : JSON.stringify(t.serviceParams))),
        ],
      );
    }
  }

  async find(tenantId: string, jobId: string, sql: Sql = this.db): Promise<JobRecord | undefined> {
    const [row] = await sql.query<JobRow>(`${JOB_WITH_LATEST_RUN} WHERE j.tenant_id = $1 AND j.id = $2`, [tenantId, jobId]);
    return row && toJob(row);
  }

  /** Locks the job row for the rest of the transaction (adding tasks, closing). */
  async lock(sql: Sql, tenantId: string, jobId: string): Promise<JobRecord | undefined> {
    const [row] = await sql.query<{ id: string }>(`SELECT id FROM jobs WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [tenantId, jobId]);
    return row && this.find(tenantId, jobId, sql);
  }

  /** Deletes the job; its tasks, runs, results, exports, schedule and firings go with it (cascades). */
  async delete(sql: Sql, tenantId: string, jobId: string): Promise<boolean> {
    const rows = await sql.query(`DELETE FROM jobs WHERE tenant_id = $1 AND id = $2 RETURNING id`, [tenantId, jobId]);
    return rows.length > 0;
  }

  /** Newest first, keyset-paged on (created_at, id). */
  async list(
    tenantId: string,
    filter: JobListFilter,
    after: { createdAtMicros: string; id: string } | undefined,
    limit: number,
  ): Promise<JobRecord[]> {
    const rows = await this.db.query<JobRow>(
      `${JOB_WITH_LATEST_RUN}
        WHERE j.tenant_id = $1
          AND ($2::text IS NULL OR j.status = $2)
          AND ($3::text IS NULL OR j.type = $3)
          AND ($4::bigint IS NULL OR (j.created_at, j.id) < (to_timestamp($4::bigint / 1000000.0), $5::uuid))
        ORDER BY j.created_at DESC, j.id DESC
        LIMIT $6`,
      [tenantId, filter.status ?? null, filter.type ?? null, after?.createdAtMicros ?? null, after?.id ?? null, limit],
    );
    return rows.map(toJob);
  }

  /** Grows the job (and its open run) by `count` tasks. */
  async addToTaskCount(sql: Sql, jobId: string, runId: string | null, count: number): Promise<void> {
    await sql.query(`UPDATE jobs SET task_count = task_count + $2, updated_at = now() WHERE id = $1`, [jobId, count]);
    if (runId) await sql.query(`UPDATE job_runs SET total = total + $2 WHERE id = $1`, [runId, count]);
  }

  async close(sql: Sql, jobId: string): Promise<void> {
    await sql.query(`UPDATE jobs SET status = 'closed', updated_at = now() WHERE id = $1`, [jobId]);
  }

  /** The job's tasks counted by their own `service_params` (`null`: the job's alone). */
  async taskParamGroups(tenantId: string, jobId: string): Promise<{ serviceParams: Record<string, unknown> | null; tasks: number }[]> {
    const rows = await this.db.query<{ service_params: Record<string, unknown> | null; tasks: number }>(
      `SELECT t.service_params, count(*)::int AS tasks FROM job_tasks t JOIN jobs j ON j.id = t.job_id
        WHERE j.tenant_id = $1 AND t.job_id = $2 GROUP BY t.service_params`,
      [tenantId, jobId],
    );
    return rows.map((row) => ({ serviceParams: row.service_params, tasks: row.tasks }));
  }

  /** Sets (or with `null`, removes) the job's webhook; false when the tenant has no such job. */
  async setWebhook(tenantId: string, jobId: string, webhook: { url: string; signature: boolean } | null): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE jobs SET webhook_url = $3, webhook_signature = $4, updated_at = now() WHERE tenant_id = $1 AND id = $2 RETURNING id`,
      [tenantId, jobId, webhook?.url ?? null, webhook?.signature ?? false],
    );
    return rows.length === 1;
  }
}

function toJob(row: JobRow): JobRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    type: row.type,
    status: row.status,
    serviceParams: row.service_params,
    webhookUrl: row.webhook_url,
    webhookSignature: row.webhook_signature,
    ingestState: row.ingest_state,
    fileInputId: row.file_input_id,
    taskCount: row.task_count,
    createdAt: row.created_at,
    createdAtMicros: row.created_at_us,
    schedule:
      row.s_schedule === null
        ? null
        : {
            schedule: row.s_schedule,
            state: row.s_state ?? 'active',
            anchorAt: row.s_anchor_at ?? row.created_at,
            nextDueAt: row.s_next_due_at,
            lastFiring:
              row.f_due_at === null || row.f_outcome === null
                ? null
                : {
                    dueAt: row.f_due_at,
                    dueAtMicros: row.f_due_at_us ?? '0',
                    firedAt: row.f_fired_at ?? row.f_due_at,
                    outcome: row.f_outcome,
                    runId: row.f_run_id,
                  },
          },
    latestRun:
      row.r_id === null
        ? null
        : {
            id: row.r_id,
            jobId: row.id,
            runSequence: row.r_run_sequence ?? 0,
            kind: row.r_kind ?? 'initial',
            status: row.r_status ?? 'queued',
            total: row.r_total ?? 0,
            successful: row.r_successful ?? 0,
            failed: row.r_failed ?? 0,
            credits: Number(row.r_credits ?? 0),
            cost: Number(row.r_cost ?? 0),
            failureReason: row.r_failure_reason,
            failureDetail: row.r_failure_detail,
            createdAt: row.r_created_at ?? row.created_at,
            startedAt: row.r_started_at,
            finishedAt: row.r_finished_at,
          },
  };
}
