import { Injectable } from '@nestjs/common';
import type { CacheStatus, ChangeStatus, RunStatus, RunTaskState } from '@trawl/contracts';
import { Database, type JobExportsRow, type JobTasksRow, type RunTasksRow, Sql } from '@trawl/persistence';

export interface ExportRecord {
  id: string;
  tenantId: string;
  jobId: string;
  runId: string;
  format: JobExportsRow['format'];
  bodyBytes: number;
  createdAt: Date;
  expiresAt: Date;
  /** Whether `expires_at` has passed, by the database's clock. */
  expired: boolean;
}

/** One line of `results.jsonl`: a run task's result with its job task's fields, without the body. */
export interface ResultRow {
  seq: number;
  url: string;
  externalId: string | null;
  metadata: Record<string, unknown> | null;
  state: RunTaskState;
  statusCode: number | null;
  outputFormat: string | null;
  contentType: string | null;
  errorCode: string | null;
  errorDetail: string | null;
  credits: number;
  cache: CacheStatus | null;
  changeStatus: ChangeStatus | null;
  /** Size of the result body; `null` when there is none. */
  bodyBytes: number | null;
}

type ExportRow = Pick<JobExportsRow, 'id' | 'tenant_id' | 'job_id' | 'run_id' | 'format' | 'body_bytes' | 'created_at' | 'expires_at'> & {
  expired: boolean;
};

type ResultDbRow = Pick<JobTasksRow, 'url' | 'external_id' | 'metadata'> &
  Pick<
    RunTasksRow,
    | 'seq'
    | 'state'
    | 'status_code'
    | 'output_format'
    | 'content_type'
    | 'error_code'
    | 'error_detail'
    | 'credits'
    | 'cache'
    | 'change_status'
  > & {
    body_bytes: number | null;
  };

const EXPORT_COLUMNS = `id, tenant_id, job_id, run_id, format, body_bytes::text AS body_bytes, created_at, expires_at, expires_at <= now() AS expired`;

/** SQL of bulk exports and of the run results they archive. Reads of a tenant's data take the tenant. */
@Injectable()
export class JobExportsRepository {
  constructor(private readonly db: Database) {}

  async findJob(tenantId: string, jobId: string): Promise<{ id: string; latestRunId: string | null } | undefined> {
    const [row] = await this.db.query<{ id: string; latest_run_id: string | null }>(
      `SELECT id, latest_run_id FROM jobs WHERE tenant_id = $1 AND id = $2`,
      [tenantId, jobId],
    );
    return row && { id: row.id, latestRunId: row.latest_run_id };
  }

  async findRun(tenantId: string, jobId: string, runId: string): Promise<{ id: string; status: RunStatus } | undefined> {
    const [row] = await this.db.query<{ id: string; status: RunStatus }>(
      `SELECT id, status FROM job_runs WHERE tenant_id = $1 AND job_id = $2 AND id = $3`,
      [tenantId, jobId, runId],
    );
    return row;
  }

  /** Sum of the run's result body sizes, in bytes (sizes come from TOAST headers: no body is read). */
  async resultBodyBytes(runId: string): Promise<number> {
    const [row] = await this.db.query<{ bytes: string }>(
      `SELECT coalesce(sum(octet_length(body)), 0)::text AS bytes FROM run_tasks WHERE run_id = $1`,
      [runId],
    );
    return Number(row?.bytes ?? 0);
  }

  async insert(record: {
    id: string;
    tenantId: string;
    jobId: string;
    runId: string;
    bodyBytes: number;
    lifetimeSeconds: number;
  }): Promise<ExportRecord> {
    const [row] = await this.db.query<ExportRow>(
      `INSERT INTO job_exports (id, tenant_id, job_id, run_id, format, body_bytes, expires_at)
       VALUES ($1, $2, $3, $4, 'tar.gz', $5, date_trunc('second', now()) + make_interval(secs => $6))
       RETURNING ${EXPORT_COLUMNS}`,
      [record.id, record.tenantId, record.jobId, record.runId, record.bodyBytes, record.lifetimeSeconds],
    );
    return toExport(row);
  }

  async find(tenantId: string, jobId: string, exportId: string): Promise<ExportRecord | undefined> {
    const [row] = await this.db.query<ExportRow>(
      `SELECT ${EXPORT_COLUMNS} FROM job_exports WHERE tenant_id = $1 AND job_id = $2 AND id = $3`,
      [tenantId, jobId, exportId],
    );
    return row && toExport(row);
  }

  /** The tenant's export of this id, whichever job it belongs to (signed download URLs name no job). */
  async findOfTenant(tenantId: string, exportId: string): Promise<ExportRecord | undefined> {
    const [row] = await this.db.query<ExportRow>(`SELECT ${EXPORT_COLUMNS} FROM job_exports WHERE tenant_id = $1 AND id = $2`, [
      tenantId,
      exportId,
    ]);
    return row && toExport(row);
  }

  /** Results after `afterSeq` in seq order (keyset), joined with their tasks; bodies left out. */
  async resultPage(sql: Sql, jobId: string, runId: string, afterSeq: number, limit: number): Promise<ResultRow[]> {
    const rows = await sql.query<ResultDbRow>(
      `SELECT rt.seq, jt.url, jt.external_id, jt.metadata, rt.state, rt.status_code, rt.output_format, rt.content_type,
              rt.error_code, rt.error_detail, rt.credits, rt.cache, rt.change_status, octet_length(rt.body) AS body_bytes
         FROM run_tasks rt JOIN job_tasks jt ON jt.job_id = $1 AND jt.seq = rt.seq
        WHERE rt.run_id = $2 AND rt.seq > $3
        ORDER BY rt.seq
        LIMIT $4`,
      [jobId, runId, afterSeq, limit],
    );
    return rows.map((row) => ({
      seq: row.seq,
      url: row.url,
      externalId: row.external_id,
      metadata: row.metadata,
      state: row.state,
      statusCode: row.status_code,
      outputFormat: row.output_format,
      contentType: row.content_type,
      errorCode: row.error_code,
      errorDetail: row.error_detail,
      credits: row.credits,
      cache: row.cache,
      changeStatus: row.change_status,
      bodyBytes: row.body_bytes,
    }));
  }

  /** The bodies of the given run tasks, in seq order. */
  async bodies(sql: Sql, runId: string, seqs: readonly number[]): Promise<{ seq: number; body: Buffer }[]> {
    return sql.query<{ seq: number; body: Buffer }>(
      `SELECT seq, body FROM run_tasks WHERE run_id = $1 AND seq = ANY($2::int[]) AND body IS NOT NULL ORDER BY seq`,
      [runId, seqs],
    );
  }
}

function toExport(row: ExportRow): ExportRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    jobId: row.job_id,
    runId: row.run_id,
    format: row.format,
    bodyBytes: Number(row.body_bytes),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    expired: row.expired,
  };
}
