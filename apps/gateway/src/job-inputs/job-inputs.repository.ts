import { Injectable } from '@nestjs/common';
import { Database, type JobInputsRow, Sql } from '@trawl/persistence';
import type { CsvFieldNames, CsvTaskRow } from './csv-rows';

export type JobInputState = JobInputsRow['state'];

export interface JobInputRecord {
  id: string;
  tenantId: string;
  header: boolean;
  fields: CsvFieldNames;
  /** The file's field delimiter and quote character (one character each). */
  delimiter: string;
  quote: string;
  state: JobInputState;
  rowCount: number | null;
  expiresAt: Date;
  /** Whether `expires_at` has passed, by the database's clock. */
  expired: boolean;
}

type JobInputRow = Pick<
  JobInputsRow,
  'id' | 'tenant_id' | 'header' | 'url_field' | 'external_id_field' | 'delimiter' | 'quote' | 'state' | 'row_count' | 'expires_at'
> & { expired: boolean };

const COLUMNS = `id, tenant_id, header, url_field, external_id_field, delimiter, quote, state, row_count, expires_at, expires_at <= now() AS expired`;

/** SQL of CSV input slots and their staged rows. */
@Injectable()
export class JobInputsRepository {
  constructor(private readonly db: Database) {}

  async insert(input: {
    id: string;
    tenantId: string;
    header: boolean;
    fields: CsvFieldNames;
    delimiter: string;
    quote: string;
    lifetimeSeconds: number;
  }): Promise<JobInputRecord> {
    const [row] = await this.db.query<JobInputRow>(
      `INSERT INTO job_inputs (id, tenant_id, header, url_field, external_id_field, state, expires_at, delimiter, quote)
       VALUES ($1, $2, $3, $4, $5, 'awaiting_upload', date_trunc('second', now()) + make_interval(secs => $6), $7, $8)
       RETURNING ${COLUMNS}`,
      [
        input.id,
        input.tenantId,
        input.header,
        String(input.fields.url),
        input.fields.externalId === null ? null : String(input.fields.externalId),
        input.lifetimeSeconds,
        input.delimiter,
        input.quote,
      ],
    );
    return toRecord(row);
  }

  /**
   * Locks a slot for an upload, refusing to wait: a second upload running at the same time gets
   * `undefined` from `locked: false` rather than queueing behind the first.
   */
  async lockForUpload(sql: Sql, id: string): Promise<{ locked: true; input: JobInputRecord | undefined } | { locked: false }> {
    try {
      const [row] = await sql.query<JobInputRow>(`SELECT ${COLUMNS} FROM job_inputs WHERE id = $1 FOR UPDATE NOWAIT`, [id]);
      return { locked: true, input: row && toRecord(row) };
    } catch (error) {
      if ((error as { code?: string }).code === '55P03') return { locked: false };
      throw error;
    }
  }

  /** Locks a tenant's slot for the job being created in this transaction. */
  async lockForJob(sql: Sql, tenantId: string, id: string): Promise<JobInputRecord | undefined> {
    const [row] = await sql.query<JobInputRow>(`SELECT ${COLUMNS} FROM job_inputs WHERE tenant_id = $1 AND id = $2 FOR UPDATE`, [
      tenantId,
      id,
    ]);
    return row && toRecord(row);
  }

  /** Stages rows numbered from `firstSeq`, in one multi-row statement. */
  async insertRows(sql: Sql, inputId: string, firstSeq: number, rows: readonly CsvTaskRow[]): Promise<void> {
    if (rows.length === 0) return;
    await sql.query(
      `INSERT INTO job_input_rows (input_id, seq, url, external_id)
       SELECT $1, r.seq, r.url, r.external_id FROM unnest($2::int[], $3::text[], $4::text[]) AS r (seq, url, external_id)`,
      [inputId, rows.map((_, i) => firstSeq + i), rows.map((r) => r.url), rows.map((r) => r.externalId)],
    );
  }

  async markUploaded(sql: Sql, id: string, rowCount: number, bytes: number): Promise<void> {
    await sql.query(`UPDATE job_inputs SET state = 'uploaded', row_count = $2, upload_bytes = $3, uploaded_at = now() WHERE id = $1`, [
      id,
      rowCount,
      bytes,
    ]);
  }

  async markUsed(sql: Sql, id: string, jobId: string): Promise<void> {
    await sql.query(`UPDATE job_inputs SET state = 'used', used_by_job_id = $2 WHERE id = $1`, [id, jobId]);
  }

  /**
   * Turns the staged rows into the job's tasks (same seq, `GET`, no per-task parameters: the job's
   * `service_params` apply) in one statement, records the input on the job, and drops the staging rows.
   */
  async moveRowsToJob(sql: Sql, inputId: string, jobId: string): Promise<number> {
    const [moved] = await sql.query<{ count: number }>(
      `WITH moved AS (
         INSERT INTO job_tasks (job_id, seq, url, method, external_id)
         SELECT $2, seq, url, 'GET', external_id FROM job_input_rows WHERE input_id = $1
         RETURNING 1)
       SELECT count(*)::int AS count FROM moved`,
      [inputId, jobId],
    );
    await sql.query(`UPDATE jobs SET file_input_id = $2 WHERE id = $1`, [jobId, inputId]);
    await sql.query(`DELETE FROM job_input_rows WHERE input_id = $1`, [inputId]);
    return moved?.count ?? 0;
  }
}

function toRecord(row: JobInputRow): JobInputRecord {
  const field = (value: string) => (row.header ? value : Number(value));
  return {
    id: row.id,
    tenantId: row.tenant_id,
    header: row.header,
    fields: { url: field(row.url_field), externalId: row.external_id_field === null ? null : field(row.external_id_field) },
    delimiter: row.delimiter,
    quote: row.quote,
    state: row.state,
    rowCount: row.row_count,
    expiresAt: row.expires_at,
    expired: row.expired,
  };
}
