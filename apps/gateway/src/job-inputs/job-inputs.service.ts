import { randomUUID } from 'node:crypto';
import { finished, Readable, Transform, TransformCallback } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { CsvError, parse } from 'csv-parse';
import { type CreateJobInputBody, MAX_INVALID_TASKS_LISTED } from '@trawl/contracts/http';
import { Database, Sql } from '@trawl/persistence';
import { BatchError, BatchErrorCode } from '../batch/batch.errors';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { checkCsvRow, columnsFromHeader, CsvColumns, CsvTaskRow, InvalidCsvRow } from './csv-rows';
import { JobInputError, JobInputErrorCode } from './job-inputs.errors';
import { JobInputRecord, JobInputsRepository } from './job-inputs.repository';
import { FileTransferSlots } from '../file-transfers/file-transfer-slots';
import { UrlSigner } from '../file-transfers/url-signer';

/** Spec-batch-api §8: an upload slot lives 24 hours. */
const SLOT_LIFETIME_SECONDS = 24 * 60 * 60;
/** Staged rows per INSERT: URLs are up to 8 KiB, so a chunk stays under ~8 MB of parameters. */
const ROWS_PER_INSERT = 1_000;
/** A record longer than this is not a URL and an id: refused rather than buffered. */
const MAX_RECORD_BYTES = 64 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Path of a slot's upload URL; outside `/v1` because the signature, not an API key, authenticates it. */
export function uploadPath(inputId: string): string {
  return `/uploads/job_inputs/${inputId}`;
}

/** What `POST /v1/job_inputs` answers. */
export interface CreatedJobInput {
  input: JobInputRecord;
  upload: { url: string; method: 'PUT'; headers: Record<string, string> };
}

/**
 * CSV inputs of the Batch API: slots, their signed uploads (streamed, checked row by row, staged
 * in Postgres) and handing their rows to the job that uses them.
 */
@Injectable()
export class JobInputsService {
  private readonly signer: UrlSigner;

  constructor(
    private readonly db: Database,
    private readonly inputs: JobInputsRepository,
    private readonly transfers: FileTransferSlots,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    this.signer = UrlSigner.fromConfig(config);
  }

  /** Opens a slot for 24 hours; `origin` is where the caller reaches the API (`https://api.example.com`). */
  async createSlot(tenantId: string, body: CreateJobInputBody, origin: string): Promise<CreatedJobInput> {
    const input = await this.inputs.insert({
      id: randomUUID(),
      tenantId,
      header: body.csv.header,
      fields: body.csv.fields,
      delimiter: body.csv.delimiter,
      quote: body.csv.quote,
      lifetimeSeconds: SLOT_LIFETIME_SECONDS,
    });
    const url = `${origin}${this.signer.signedPath('PUT', uploadPath(input.id), input.expiresAt)}`;
    return { input, upload: { url, method: 'PUT', headers: { 'Content-Type': 'text/csv' } } };
  }

  /**
   * Receives a slot's file: checks the URL's signature, then in one transaction that holds the slot
   * streams the body through the CSV parser, checks every row and stages the good ones in chunks.
   * Any refusal rolls everything back, so the slot can take a corrected file at the same URL.
   * Memory stays flat: at most one chunk of rows and the parser's current record are held.
   *
   * @throws JobInputError `upload_signature_invalid`, `upload_url_expired`, `csv_too_large`,
   *   `file_input_already_uploaded`, `file_input_upload_in_progress`, `csv_too_many_rows`,
   *   `csv_malformed`, `csv_column_missing`, `csv_invalid_rows`; BatchError `file_input_not_found`;
   *   FileTransferError `transfers_busy`.
   */
  async receiveUpload(
    inputId: string,
    signed: { expires: unknown; signature: unknown },
    body: Readable,
    contentLength: number | undefined,
  ): Promise<{ input: JobInputRecord; rows: number }> {
    const verdict = UUID.test(inputId)
      ? this.signer.verify('PUT', uploadPath(inputId), signed.expires, signed.signature, new Date())
      : 'invalid';
    if (verdict === 'invalid') {
      throw new JobInputError(
        JobInputErrorCode.UploadSignatureInvalid,
        'This upload URL is not valid: use the `upload.url` exactly as POST /v1/job_inputs gave it.',
      );
    }
    if (verdict === 'expired') {
      throw new JobInputError(
        JobInputErrorCode.UploadUrlExpired,
        'This upload URL has expired (24 hours after the slot was made): create a new slot.',
      );
    }
    const maxBytes = this.config.CSV_UPLOAD_MAX_BYTES;
    if (contentLength !== undefined && contentLength > maxBytes) throw tooLarge(maxBytes);
    const release = this.transfers.take();
    try {
      return await this.receiveInTransaction(inputId, body, maxBytes);
    } finally {
      release();
    }
  }

  private receiveInTransaction(inputId: string, body: Readable, maxBytes: number): Promise<{ input: JobInputRecord; rows: number }> {
    return this.db.transaction(
      async (sql) => {
        const lock = await this.inputs.lockForUpload(sql, inputId);
        if (!lock.locked) {
          throw new JobInputError(JobInputErrorCode.UploadInProgress, 'Another upload to this slot is in progress; wait for its answer.');
        }
        const input = lock.input;
        if (!input) throw new BatchError(BatchErrorCode.FileInputNotFound, 'This file input no longer exists.');
        if (input.state !== 'awaiting_upload') {
          throw new JobInputError(
            JobInputErrorCode.InputAlreadyUploaded,
            'A file was already uploaded to this slot (one file per slot): create a new slot for another file.',
          );
        }
        if (input.expired) {
          throw new JobInputError(JobInputErrorCode.UploadUrlExpired, 'This upload slot has expired: create a new slot.');
        }
        const counter = new ByteLimit(maxBytes);
        // A client that goes away mid-upload ends the parse with an error (and the transaction with it).
        finished(body, (error) => {
          if (error) counter.destroy(error);
        });
        const rows = await this.stageRows(sql, input, body.pipe(counter));
        await this.inputs.markUploaded(sql, input.id, rows, counter.bytes);
        return { input: { ...input, state: 'uploaded' as const, rowCount: rows }, rows };
      },
      // A replay would need the request body again; the slot lock leaves nothing to retry for.
      { retries: 0 },
    );
  }

  /**
   * Takes an uploaded input for the job being created in `sql`'s transaction: it must be the
   * tenant's, uploaded, not used and not expired. Locks it and marks it used; answers its row count.
   * Its rows are moved with {@link moveRowsToJob} once the job row exists.
   *
   * @throws BatchError `file_input_not_found` (also another tenant's); JobInputError
   *   `file_input_used`, `file_input_expired`, `file_input_not_uploaded`.
   */
  async claimForJob(sql: Sql, tenantId: string, inputId: string, jobId: string): Promise<number> {
    const input = UUID.test(inputId) ? await this.inputs.lockForJob(sql, tenantId, inputId) : undefined;
    if (!input) throw new BatchError(BatchErrorCode.FileInputNotFound, `No CSV input ${inputId} on your account.`);
    if (input.state === 'used') {
      throw new JobInputError(
        JobInputErrorCode.InputUsed,
        'This CSV input was used by another job (one job per input): upload the file to a new slot.',
      );
    }
    if (input.expired) {
      throw new JobInputError(
        JobInputErrorCode.InputExpired,
        'This CSV input has expired (24 hours after its slot was made): upload the file to a new slot.',
      );
    }
    if (input.state !== 'uploaded') {
      throw new JobInputError(
        JobInputErrorCode.InputNotUploaded,
        'No file has been uploaded to this CSV input yet: PUT it to `upload.url` first.',
      );
    }
    await this.inputs.markUsed(sql, input.id, jobId);
    return input.rowCount ?? 0;
  }

  /** Copies a claimed input's rows into the job's tasks (in `sql`'s transaction) and drops them from staging. */
  moveRowsToJob(sql: Sql, inputId: string, jobId: string): Promise<number> {
    return this.inputs.moveRowsToJob(sql, inputId, jobId);
  }

  private async stageRows(sql: Sql, input: JobInputRecord, source: Readable): Promise<number> {
    const parser = parse({
      delimiter: input.delimiter,
      quote: input.quote,
      bom: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_BYTES,
      info: true,
    });
    // Errors of the byte counter (too large) end the parse with the same error.
    source.on('error', (error) => parser.destroy(error));
    source.pipe(parser);
    const maxRows = this.config.CSV_UPLOAD_MAX_ROWS;
    let columns: CsvColumns | undefined = input.header
      ? undefined
      : { url: Number(input.fields.url), externalId: input.fields.externalId === null ? null : Number(input.fields.externalId) };
    let dataRows = 0;
    const invalid: InvalidCsvRow[] = [];
    let invalidCount = 0;
    let chunk: CsvTaskRow[] = [];
    let staged = 0;
    try {
      for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
        if (columns === undefined) {
          const found = columnsFromHeader(record, input.fields);
          if ('missing' in found) {
            throw new JobInputError(
              JobInputErrorCode.CsvColumnMissing,
              `The header has no column \`${found.name}\` for \`${found.missing}\` (csv.fields.${found.missing}).`,
              { field: found.missing, column: found.name },
            );
          }
          columns = found;
          continue;
        }
        dataRows += 1;
        if (dataRows > maxRows) {
          throw new JobInputError(
            JobInputErrorCode.CsvTooManyRows,
            `The file has more than ${maxRows.toLocaleString('en')} data rows; split it across several jobs.`,
            { max_rows: maxRows },
          );
        }
        const checked = checkCsvRow(record, columns);
        if (!checked.ok) {
          invalidCount += 1;
          if (invalid.length < MAX_INVALID_TASKS_LISTED) invalid.push({ row: info.lines, field: checked.field, reason: checked.reason });
          continue;
        }
        // After the first bad row nothing will be kept: keep reading only to list the others.
        if (invalidCount > 0) continue;
        chunk.push(checked.row);
        if (chunk.length === ROWS_PER_INSERT) {
          await this.inputs.insertRows(sql, input.id, staged + 1, chunk);
          staged += chunk.length;
          chunk = [];
        }
      }
    } catch (error) {
      if (error instanceof CsvError) {
        throw new JobInputError(JobInputErrorCode.CsvMalformed, `The file is not valid CSV: ${error.message}`);
      }
      throw error;
    } finally {
      source.unpipe(parser);
      parser.destroy();
    }
    if (invalidCount > 0) {
      const listed = invalid.length < invalidCount ? ` (the first ${invalid.length} are listed)` : '';
      throw new JobInputError(
        JobInputErrorCode.CsvInvalidRows,
        `${invalidCount} row${invalidCount === 1 ? ' is' : 's are'} invalid${listed}; nothing was stored. Fix them and upload the file again to the same URL.`,
        { invalid_rows: invalid, invalid_row_count: invalidCount },
      );
    }
    if (dataRows === 0) throw new JobInputError(JobInputErrorCode.CsvMalformed, 'The file has no data rows.');
    await this.inputs.insertRows(sql, input.id, staged + 1, chunk);
    return staged + chunk.length;
  }
}

function tooLarge(maxBytes: number): JobInputError {
  return new JobInputError(
    JobInputErrorCode.CsvTooLarge,
    `The file is over ${maxBytes.toLocaleString('en')} bytes; split it across several jobs.`,
    { max_bytes: maxBytes },
  );
}

/** Counts the bytes going through and fails the stream past the limit. */
class ByteLimit extends Transform {
  bytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) return done(tooLarge(this.maxBytes));
    done(null, chunk);
  }
}
