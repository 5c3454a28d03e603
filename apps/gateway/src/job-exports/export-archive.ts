import { isOutputFormat, OUTPUT_FORMAT_MEDIA } from '@trawl/contracts';
import { resultStatus } from '../batch/job.presenter';
import type { ResultRow } from './job-exports.repository';

/**
 * File extensions of result bodies by output format (`OUTPUT_FORMAT_MEDIA`), then by the media type
 * of a format's content type; anything else is `.bin`.
 */
const EXTENSION_BY_TYPE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.values(OUTPUT_FORMAT_MEDIA).map((media) => [media.contentType.split(';')[0]!, media.extension]),
);

/** Name in the archive of a result's body: `bodies/<seq>.<ext>`; `null` when the result has none. */
export function bodyFileName(row: Pick<ResultRow, 'seq' | 'outputFormat' | 'contentType' | 'bodyBytes'>): string | null {
  if (row.bodyBytes === null) return null;
  const type = row.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  const extension = isOutputFormat(row.outputFormat) ? OUTPUT_FORMAT_MEDIA[row.outputFormat].extension : (EXTENSION_BY_TYPE[type] ?? 'bin');
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
      ...resultStatus(row.state),
      status_code: row.statusCode,
      output_format: row.outputFormat,
      content_type: row.contentType,
      error: row.errorCode === null ? null : { code: row.errorCode, detail: row.errorDetail },
      credits: row.credits,
      ...(row.cache !== null && { cache: row.cache }),
      ...(row.changeStatus !== null && { change_status: row.changeStatus }),
      file: bodyFileName(row),
    })}\n`,
    'utf8',
  );
}
