import { Injectable } from '@nestjs/common';
import type { Sql } from '@trawl/persistence';

/** A large submission whose task rows are still being written. */
export interface IngestRecord {
  jobId: string;
  tenantId: string;
  /** The run the tasks are queued in as they are written (the job's first run). */
  runId: string | null;
  /** JSON array of the checked tasks. */
  tasksJson: string;
  taskCount: number;
  /** First task not written yet. */
  nextSeq: number;
  leaseToken: string;
}

/** SQL of `job_ingests`, the staging rows of large submissions. */
@Injectable()
export class JobIngestsRepository {
  async insert(sql: Sql, ingest: IngestRecord, leaseSeconds: number): Promise<void> {
    await sql.query(
      `INSERT INTO job_ingests (job_id, tenant_id, run_id, tasks, task_count, next_seq, lease_token, lease_until)
       VALUES ($1, $2, $3, $4, $5, $6, $7, now() + make_interval(secs => $8))`,
      [ingest.jobId, ingest.tenantId, ingest.runId, ingest.tasksJson, ingest.taskCount, ingest.nextSeq, ingest.leaseToken, leaseSeconds],
    );
  }

  /**
   * Records progress and extends the lease, if the lease is still `leaseToken`'s; false when another
   * gateway took the ingest over (the caller stops).
   */
  async advance(sql: Sql, jobId: string, leaseToken: string, nextSeq: number, leaseSeconds: number): Promise<boolean> {
    const rows = await sql.query(
      `UPDATE job_ingests SET next_seq = $3, lease_until = now() + make_interval(secs => $4)
        WHERE job_id = $1 AND lease_token = $2 RETURNING job_id`,
      [jobId, leaseToken, nextSeq, leaseSeconds],
    );
    return rows.length === 1;
  }

  /** Ends an ingest: the job is ready and its staging row gone, in one transaction. */
  async finish(sql: Sql, jobId: string, leaseToken: string): Promise<boolean> {
    const rows = await sql.query(`DELETE FROM job_ingests WHERE job_id = $1 AND lease_token = $2 RETURNING job_id`, [jobId, leaseToken]);
    if (rows.length === 0) return false;
    await sql.query(`UPDATE jobs SET ingest_state = 'ready', updated_at = now() WHERE id = $1`, [jobId]);
    return true;
  }

  /**
   * Takes over one ingest whose lease has run out (its gateway died or stalled), under a new lease
   * token. Spans tenants on purpose: recovery is a system sweep; the row names its tenant.
   */
  async claimExpired(sql: Sql, leaseToken: string, leaseSeconds: number): Promise<IngestRecord | undefined> {
    const [row] = await sql.query<{
      job_id: string;
      tenant_id: string;
      run_id: string | null;
      tasks: string;
      task_count: number;
      next_seq: number;
    }>(
      `UPDATE job_ingests SET lease_token = $1, lease_until = now() + make_interval(secs => $2)
        WHERE job_id = (SELECT job_id FROM job_ingests WHERE lease_until < now() ORDER BY lease_until LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING job_id, tenant_id, run_id, tasks, task_count, next_seq`,
      [leaseToken, leaseSeconds],
    );
    return (
      row && {
        jobId: row.job_id,
        tenantId: row.tenant_id,
        runId: row.run_id,
        tasksJson: row.tasks,
        taskCount: row.task_count,
        nextSeq: row.next_seq,
        leaseToken,
      }
    );
  }
}
