import { ApiError } from '../problems/api-error';

/** Refusals of CSV input slots and their uploads (spec-batch-api §2 "CSV input slot", §8). */
export enum JobInputErrorCode {
  /** The upload URL's signature does not match, or it names no slot. */
  UploadSignatureInvalid = 'upload_signature_invalid',
  /** The upload URL is past its `expires` (24 hours after the slot was made). */
  UploadUrlExpired = 'upload_url_expired',
  /** The slot already holds an uploaded file (or a job used it): one upload per slot. */
  InputAlreadyUploaded = 'file_input_already_uploaded',
  /** Another upload to this slot is being received right now. */
  UploadInProgress = 'file_input_upload_in_progress',
  /** The upload is not sent as `Content-Type: text/csv`. */
  UploadNotCsv = 'upload_not_csv',
  /** The file is over the size limit (50 MB). */
  CsvTooLarge = 'csv_too_large',
  /** The file has more data rows than allowed (100,000). */
  CsvTooManyRows = 'csv_too_many_rows',
  /** The file is not readable CSV (unclosed quote, a record over the size bound, not UTF-8 text). */
  CsvMalformed = 'csv_malformed',
  /** A column named in `csv.fields` is not in the header (or the file is empty). */
  CsvColumnMissing = 'csv_column_missing',
  /** One or more rows are invalid; the problem lists them in `invalid_rows`. */
  CsvInvalidRows = 'csv_invalid_rows',
  /** `file_input_id` names an input whose file has not been uploaded yet. */
  InputNotUploaded = 'file_input_not_uploaded',
  /** `file_input_id` names an input a job already used (one job per input). */
  InputUsed = 'file_input_used',
  /** `file_input_id` names an input past its 24-hour lifetime. */
  InputExpired = 'file_input_expired',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    jobInputs: JobInputErrorCode;
  }
}

export class JobInputError extends ApiError<JobInputErrorCode> {}
