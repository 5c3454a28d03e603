import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { Database, RUNS_IN_FLIGHT, Sql } from '@trawl/persistence';
import { BatchError, BatchErrorCode } from '../batch/batch.errors';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { bodyFileName, resultLine } from './export-archive';
import { JobExportError, JobExportErrorCode } from './job-exports.errors';
import { ExportRecord, JobExportsRepository, ResultRow } from './job-exports.repository';
import { tarEnd, tarFileHeader, tarPadding } from './tar';
import { UrlSigner } from '../file-transfers/url-signer';

/** Spec-batch-api §8: an export expires 12 hours after creation. */
const EXPORT_LIFETIME_SECONDS = 12 * 60 * 60;
/** Results read per keyset page (without bodies). */
const RESULTS_PER_PAGE = 500;
/** Bodies fetched per query, by their summed size (one body larger than this is fetched alone). */
const BODY_BYTES_PER_FETCH = 8 * 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path of an export's archive (authenticated by the API key, like every `/v1` route). */
export function exportPath(jobId: string, exportId: string): string {
  return `/v1/jobs/${jobId}/exports/${exportId}`;
}

/** File name an export is saved under: the last segment of its download URL and its `Content-Disposition`. */
export function exportFileName(exportId: string): string {
  return `${exportId}.tar.gz`;
}

/**
 * Path of an export's signed download URL: outside `/v1`, since the signature, not an API key,
 * authenticates it. It names the tenant, so the signature binds the tenant as well as the export,
 * and ends in the file name, so `curl -O` and `wget` save it under that name.
 */
export function downloadPath(tenantId: string, exportId: string): string {
  return `/downloads/job_exports/${tenantId}/${exportFileName(exportId)}`;
}

/**
 * Bulk exports of a run's results: an export is a record that allows downloading, for 12 hours,
 * a `.tar.gz` built on the fly from the database (`results.jsonl` and one file per result body).
 */
@Injectable()
export class JobExportsService {
  private readonly signer: UrlSigner;

  constructor(
    private readonly db: Database,
    private readonly exportsRepository: JobExportsRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.signer = UrlSigner.fromConfig(config);
  }

  /** The export's signed download path and query (`GET`, no API key), valid as long as the export. */
  signedDownloadPath(exported: ExportRecord): string {
    return this.signer.signedPath('GET', downloadPath(exported.tenantId, exported.id), exported.expiresAt);
  }

  /**
   * Records an export of a finished run (the job's latest by default), refusing a run whose
   * result bodies together exceed `EXPORT_MAX_BODY_BYTES`.
   *
   * @throws BatchError `job_not_found`; BatchError `run_not_found`; JobExportError `run_not_finished`, `export_too_large`.
   */
  async create(tenantId: string, jobId: string, runId: string | undefined): Promise<ExportRecord> {
    const job = UUID.test(jobId) ? await this.exportsRepository.findJob(tenantId, jobId) : undefined;
    if (!job) throw new BatchError(BatchErrorCode.JobNotFound, 'No job with this id on your account.');
    const wanted = runId ?? job.latestRunId;
    const run = wanted !== null && UUID.test(wanted) ? await this.exportsRepository.findRun(tenantId, job.id, wanted) : undefined;
    if (!run) throw new BatchError(BatchErrorCode.RunNotFound, 'This job has no run with this id; list them with GET /v1/jobs/{id}/runs.');
    if ((RUNS_IN_FLIGHT as readonly string[]).includes(run.status)) {
      throw new JobExportError(JobExportErrorCode.RunNotFinished, `The run is ${run.status}: export it once it has ended.`, {
        run_status: run.status,
      });
    }
    const bodyBytes = await this.exportsRepository.resultBodyBytes(run.id);
    const limit = this.config.EXPORT_MAX_BODY_BYTES;
    if (bodyBytes > limit) {
      throw new JobExportError(
        JobExportErrorCode.ExportTooLarge,
        `The run's results hold ${bodyBytes.toLocaleString('en')} bytes, over the ${limit.toLocaleString('en')} one archive may hold; read them page by page from GET /v1/jobs/{job_id}/results.`,
        { body_bytes: bodyBytes, max_body_bytes: limit },
      );
    }
    return this.exportsRepository.insert({
      id: randomUUID(),
      tenantId,
      jobId: job.id,
      runId: run.id,
      bodyBytes,
      lifetimeSeconds: EXPORT_LIFETIME_SECONDS,
    });
  }

  /**
   * An export that can still be downloaded (of run `runId`, when given).
   *
   * @throws JobExportError `export_not_found`, `export_expired`.
   */
  async open(tenantId: string, jobId: string, exportId: string, runId?: string): Promise<ExportRecord> {
    const found = UUID.test(jobId) && UUID.test(exportId) ? await this.exportsRepository.find(tenantId, jobId, exportId) : undefined;
    if (!found || (runId !== undefined && found.runId !== runId))
      throw new JobExportError(JobExportErrorCode.ExportNotFound, 'This job has no export with this id on your account.');
    if (found.expired) {
      throw new JobExportError(JobExportErrorCode.ExportExpired, 'This export has expired (12 hours after it was made): create a new one.');
    }
    return found;
  }

  /**
   * The export a signed download URL names, once its signature holds. A signature that does not
   * match reads as not found, as another tenant's export does: the answer tells nothing of what
   * exists. The URL expires with the export, so a genuine but past URL is `export_expired`.
   *
   * @throws JobExportError `export_not_found`, `export_expired`.
   */
  async openSigned(tenantId: string, fileName: string, signed: { expires: unknown; signature: unknown }): Promise<ExportRecord> {
    const exportId = fileName.endsWith('.tar.gz') ? fileName.slice(0, -'.tar.gz'.length) : '';
    const verdict =
      UUID.test(tenantId) && UUID.test(exportId)
        ? this.signer.verify('GET', downloadPath(tenantId, exportId), signed.expires, signed.signature, new Date())
        : 'invalid';
    if (verdict === 'invalid') {
      throw new JobExportError(
        JobExportErrorCode.ExportNotFound,
        'No export at this download URL: its signature does not match it. Use `download.url` exactly as POST /v1/jobs/{job_id}/exports gave it.',
      );
    }
    if (verdict === 'expired') {
      throw new JobExportError(
        JobExportErrorCode.ExportExpired,
        'This download URL has expired with its export (12 hours after it was made): create a new export.',
      );
    }
    const found = await this.exportsRepository.findOfTenant(tenantId, exportId);
    if (!found) throw new JobExportError(JobExportErrorCode.ExportNotFound, 'This export no longer exists: create a new one.');
    if (found.expired) {
      throw new JobExportError(JobExportErrorCode.ExportExpired, 'This export has expired (12 hours after it was made): create a new one.');
    }
    return found;
  }

  /**
   * Writes the export's tar stream (uncompressed; the caller gzips) to `out`, honouring its
   * backpressure. Reads one consistent snapshot (a read-only repeatable-read transaction), since
   * `results.jsonl`'s size is stated before its lines are written: one pass sizes it, the next
   * writes it, a third writes the bodies. Memory stays flat: one page of results and at most
   * ~8 MiB of bodies (or one larger body) at a time.
   */
  async writeArchive(exported: ExportRecord, out: Writable): Promise<void> {
    const write = writerTo(out);
    const modifiedAt = exported.createdAt;
    await this.db.transaction(
      async (sql) => {
        await sql.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        let linesBytes = 0;
        for await (const page of this.pages(sql, exported)) {
          // Nothing is written in this pass: a client gone meanwhile is seen here or never.
          if (out.destroyed) throw new Error('export download closed by the client');
          for (const row of page) linesBytes += resultLine(row).length;
        }
        await write(tarFileHeader('results.jsonl', linesBytes, modifiedAt));
        for await (const page of this.pages(sql, exported)) await write(Buffer.concat(page.map(resultLine)));
        await write(tarPadding(linesBytes));
        for await (const page of this.pages(sql, exported)) {
          for (const group of bodyFetchGroups(page)) {
            const bodies = await this.exportsRepository.bodies(
              sql,
              exported.runId,
              group.map((row) => row.seq),
            );
            for (const [index, { seq, body }] of bodies.entries()) {
              const row = group[index];
              const name = row && row.seq === seq ? bodyFileName(row) : null;
              if (!name || body.length !== row?.bodyBytes)
                throw new Error(`export ${exported.id}: body of task ${seq} changed under a snapshot`);
              await write(tarFileHeader(name, body.length, modifiedAt));
              await write(body);
              await write(tarPadding(body.length));
            }
          }
        }
        await write(tarEnd());
      },
      { retries: 0 },
    );
  }

  private async *pages(sql: Sql, exported: ExportRecord): AsyncGenerator<ResultRow[]> {
    let after = 0;
    for (;;) {
      const page = await this.exportsRepository.resultPage(sql, exported.jobId, exported.runId, after, RESULTS_PER_PAGE);
      if (page.length === 0) return;
      yield page;
      after = page[page.length - 1]!.seq;
    }
  }
}

/** The page's results that have a body, in groups of at most ~8 MiB of bodies. */
function bodyFetchGroups(page: readonly ResultRow[]): ResultRow[][] {
  const groups: ResultRow[][] = [];
  let current: ResultRow[] = [];
  let bytes = 0;
  for (const row of page) {
    if (row.bodyBytes === null) continue;
    if (current.length > 0 && bytes + row.bodyBytes > BODY_BYTES_PER_FETCH) {
      groups.push(current);
      current = [];
      bytes = 0;
    }
    current.push(row);
    bytes += row.bodyBytes;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** Writes with backpressure; fails rather than waits forever when `out` is closed (the client left). */
function writerTo(out: Writable): (chunk: Buffer) => Promise<void> {
  return async (chunk) => {
    if (out.destroyed || out.writableEnded) throw new Error('export download closed by the client');
    if (chunk.length === 0 || out.write(chunk)) return;
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        out.off('drain', onDrain);
        out.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => settle(new Error('export download closed by the client'));
      out.on('drain', onDrain);
      out.on('close', onClose);
    });
  };
}
