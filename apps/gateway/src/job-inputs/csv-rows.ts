import { checkTargetUrl } from '../batch/service-params';
import { BATCH_LIMITS } from '@trawl/contracts/http';

/** Where in a CSV record the task fields are: 0-based column positions. */
export interface CsvColumns {
  url: number;
  externalId: number | null;
}

/** The columns named in `csv.fields`: header names when the file has a header, else 0-based indexes. */
export interface CsvFieldNames {
  url: string | number;
  externalId: string | number | null;
}

/** A data row as stored: the URL as the Fetch API reads it, the external id as given. */
export interface CsvTaskRow {
  url: string;
  externalId: string | null;
}

/** One entry of a problem's `invalid_rows`. */
export interface InvalidCsvRow {
  /** Line of the file on which the record ends (1-based; the header is line 1). */
  row: number;
  /** `url` or `external_id`. */
  field: string;
  reason: string;
}

/**
 * Finds the columns of `fields` in a header record (names match exactly after trimming); names a
 * field whose column is missing.
 */
export function columnsFromHeader(header: readonly string[], fields: CsvFieldNames): CsvColumns | { missing: string; name: string } {
  const position = (name: string | number) => (typeof name === 'number' ? name : header.findIndex((cell) => cell.trim() === name));
  const url = position(fields.url);
  if (url < 0 || url >= header.length) return { missing: 'url', name: String(fields.url) };
  if (fields.externalId === null) return { url, externalId: null };
  const externalId = position(fields.externalId);
  if (externalId < 0 || externalId >= header.length) return { missing: 'external_id', name: String(fields.externalId) };
  return { url, externalId };
}

/**
 * Checks one data record with the rules of inline tasks (task-checks.ts): a URL is
 * required, at most 8,192 characters, and must pass the Fetch API's check of `url` (http or https,
 * a public host name); an `external_id` has at most 255 characters, and an empty one is none.
 */
export function checkCsvRow(
  record: readonly string[],
  columns: CsvColumns,
): { ok: true; row: CsvTaskRow } | { ok: false; field: string; reason: string } {
  const url = (record[columns.url] ?? '').trim();
  if (url === '') return { ok: false, field: 'url', reason: 'is required' };
  if (url.length > BATCH_LIMITS.urlChars) {
    return { ok: false, field: 'url', reason: `is over ${BATCH_LIMITS.urlChars.toLocaleString('en')} characters` };
  }
  const target = checkTargetUrl(url);
  if (!target.ok) return { ok: false, field: 'url', reason: target.reason };
  const externalId = columns.externalId === null ? '' : (record[columns.externalId] ?? '');
  if (externalId.length > BATCH_LIMITS.externalIdChars) {
    return { ok: false, field: 'external_id', reason: `is over ${BATCH_LIMITS.externalIdChars} characters` };
  }
  return { ok: true, row: { url: target.href, externalId: externalId === '' ? null : externalId } };
}
