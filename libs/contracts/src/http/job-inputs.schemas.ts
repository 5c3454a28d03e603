import { z } from 'zod';
import { MAX_INVALID_TASKS_LISTED } from './batch-jobs.schemas';
import { problemDetails } from './problem.schema';

/** CSV inputs of batch jobs over HTTP (spec-batch-api §2 "CSV input slot", §4 POST /job_inputs, §8). */

/** Highest 0-based column index accepted (a spreadsheet's last column). */
const MAX_COLUMN_INDEX = 16_383;
const MAX_COLUMN_NAME_CHARS = 255;

const COLUMN_DESCRIPTION = 'A header name (string) when `csv.header` is true, else a 0-based column index (integer).';
/** How the document shows a column: zod takes it as unknown so that the checks below word the problem. */
const columnShape = {
  anyOf: [
    { type: 'string', minLength: 1, maxLength: MAX_COLUMN_NAME_CHARS },
    { type: 'integer', minimum: 0, maximum: MAX_COLUMN_INDEX },
  ],
};

/** A CSV delimiter or quote: one character, not a line break. */
const csvCharacter = z.string().regex(/^[^\r\n]$/u, { error: 'must be one character, not a line break' });

/**
 * Body of `POST /v1/job_inputs` (spec-batch-api §2 "CSV input slot"). A column is a header name
 * (with `csv.header: true`) or a 0-based index (without a header). Columns are checked by hand so
 * that a missing or mistyped one is a 400 and a bad value a 422, as everywhere (the gateway's
 * body validation).
 */
export const createJobInputBody = z
  .strictObject({
    type: z.literal('csv', { error: 'must be "csv"' }),
    csv: z.strictObject({
      header: z.boolean().meta({ description: "Whether the file's first row names the columns." }),
      delimiter: csvCharacter.default(',').meta({ description: 'The field delimiter: one character (default `,`; `\\t` for TSV).' }),
      quote: csvCharacter.default('"').meta({ description: 'The quote character: one character (default `"`).' }),
      fields: z.strictObject({
        url: z.unknown().meta({ description: `Required. ${COLUMN_DESCRIPTION}`, ...columnShape }),
        external_id: z
          .unknown()
          .optional()
          .meta({ description: COLUMN_DESCRIPTION, ...columnShape }),
      }),
    }),
  })
  .superRefine((body, ctx) => {
    const { header, fields, delimiter, quote } = body.csv;
    if (delimiter === quote) ctx.addIssue({ code: 'custom', path: ['csv', 'quote'], message: 'must differ from `csv.delimiter`' });
    const check = (name: 'url' | 'external_id', value: unknown) => {
      const path = ['csv', 'fields', name];
      const expected = header ? 'string' : 'number';
      if (value === undefined || typeof value !== expected) {
        const what = header
          ? 'a header name (string) when `csv.header` is true'
          : 'a 0-based column index (integer) when `csv.header` is false';
        ctx.addIssue({ code: 'invalid_type', expected, input: value, path, message: `must be ${what}` });
        return;
      }
      if (typeof value === 'string' && (value.length === 0 || value.length > MAX_COLUMN_NAME_CHARS)) {
        ctx.addIssue({ code: 'custom', path, message: `must be 1 to ${MAX_COLUMN_NAME_CHARS} characters long` });
      }
      if (typeof value === 'number' && (!Number.isInteger(value) || value < 0 || value > MAX_COLUMN_INDEX)) {
        ctx.addIssue({ code: 'custom', path, message: `must be an integer from 0 to ${MAX_COLUMN_INDEX.toLocaleString('en')}` });
      }
    };
    check('url', fields.url);
    if (fields.external_id !== undefined && fields.external_id !== null) {
      check('external_id', fields.external_id);
      if (fields.external_id === fields.url) {
        ctx.addIssue({ code: 'custom', path: ['csv', 'fields', 'external_id'], message: 'must name another column than `url`' });
      }
    }
  })
  .transform((body) => ({
    type: body.type,
    csv: {
      header: body.csv.header,
      delimiter: body.csv.delimiter,
      quote: body.csv.quote,
      fields: {
        url: body.csv.fields.url as string | number,
        externalId: (body.csv.fields.external_id ?? null) as string | number | null,
      },
    },
  }))
  .meta({ id: 'CreateJobInputRequest' });
export type CreateJobInputBody = z.output<typeof createJobInputBody>;

/** `job_inputs.state`: waiting for its file, holding checked rows, taken by a job, or refused. */
export const JOB_INPUT_STATES = ['awaiting_upload', 'uploaded', 'used', 'invalid'] as const;
export type JobInputState = (typeof JOB_INPUT_STATES)[number];

const column = z.union([z.string(), z.int().min(0)]);

/** `POST /v1/job_inputs`'s answer: where and how to send the file. */
export const jobInputSlot = z
  .object({
    file_input_id: z.uuid(),
    type: z.literal('csv'),
    csv: z.object({
      header: z.boolean(),
      delimiter: z.string(),
      quote: z.string(),
      fields: z.object({ url: column, external_id: column.optional() }),
    }),
    state: z.enum(JOB_INPUT_STATES),
    upload: z
      .object({
        url: z.string().meta({ description: 'Signed URL, no API key needed; valid until `expires_at`.' }),
        method: z.literal('PUT'),
        headers: z.record(z.string(), z.string()).meta({ description: 'Send exactly these headers with the file.' }),
      })
      .meta({ description: 'Send the file with this request.' }),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: 'JobInputSlot' });
export type JobInputSlotAnswer = z.infer<typeof jobInputSlot>;

/** The upload's answer: the file's rows were checked and are held for a job. */
export const uploadedJobInput = z
  .object({
    file_input_id: z.uuid(),
    state: z.enum(JOB_INPUT_STATES),
    rows: z.int().min(0).meta({ description: 'Data rows taken (the tasks of the job that uses the input).' }),
    expires_at: z.iso.datetime(),
  })
  .meta({ id: 'UploadedJobInput' });
export type UploadedJobInputAnswer = z.infer<typeof uploadedJobInput>;

/** Query of a signed upload URL, as `upload.url` carries it. */
export const signedUrlQuery = z.object({
  expires: z.string().meta({ description: 'Expiry of the URL, as signed.' }),
  signature: z.string().meta({ description: 'Signature of the method, path and `expires`.' }),
});

/** A `400` of an upload: with `code: csv_invalid_rows`, the bad rows (at most 100 listed) and their count. */
export const csvInvalidRowsProblem = problemDetails
  .extend({
    invalid_rows: z
      .array(z.object({ row: z.int().min(1).meta({ description: 'Line of the file.' }), field: z.string(), reason: z.string() }))
      .max(MAX_INVALID_TASKS_LISTED)
      .optional(),
    invalid_row_count: z.int().min(1).optional(),
  })
  .meta({
    id: 'CsvInvalidRowsProblem',
    description: 'An error answer; with `code: csv_invalid_rows`, the bad rows (at most 100 listed) and their count.',
  });
