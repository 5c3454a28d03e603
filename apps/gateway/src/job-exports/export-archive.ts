import type { RunTaskState } from '../batch/job-results.repository';
import { resultStatus } from '../batch/job.presenter';
import type { ResultRow } from './job-exports.repository';

/** File extensions of result bodies, by output format, then by content type; anything else is `.bin`. */
const EXTENSION_BY_FORMAT: Readonly<Record<string, string>> = {
  html: 'html',
  json: 'json',
  markdown: 'md',
  plaintext: 'txt',
  text: 'txt',
  pdf: 'pdf',
  screenshot: 'png',
  png: 'png',
  jpeg: 'jpg',
};
const EXTENSION_BY_TYPE: Readonly<Record<string, string>> = {
  'text/html': 'html',
  'application/json': 'json',
  'text/markdown': 'md',
  'text/plain': 'txt',
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
};

/** Name in the archive of a result's body: `bodies/<seq>.<ext>`; `null` when the result has none. */
export function bodyFileName(row: Pick<ResultRow, 'seq' | 'outputFormat' | 'contentType' | 'bodyBytes'>): string | null {
  if (row.bodyBytes === null) return null;
  const type = row.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const extension = EXTENSION_BY_FORMAT[row.outputFormat ?? ''] ?? EXTENSION_BY_TYPE[type] ?? 'bin';
  return `bodies/${row.seq}.${extension}`;
}

/**
 * One line of `results.jsonl` (with its newline): the task's fields and its result, and where its
 * body is in the archive. Its `status` (and `carried_over`) are the results endpoint's words, not
 * the stored state's. Deterministic: the archive states the file's size before writing it.
 */
export function resultLine(row: ResultRow): Buffer {
  return Buffer.from(
    `${JSON.stringify({
      seq: row.seq,
      url: row.url,
      external_id: row.externalId,
      metadata: row.metadata,
      // `run_tasks.state` is one of these five (a CHECK constraint).
      ...resultStatus(row.state as RunTaskState),
      status_code: row.statusCode,
      output_format: row.outputFormat,
      content_type: row.contentType,
      error: row.errorCode === null ? null : { code: row.errorCode, detail: row.errorDetail },
      credits: row.credits,
      file: bodyFileName(row),
    })}\n`,
    'utf8',
  );
}
