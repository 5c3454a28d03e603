import { z } from 'zod';

/** Highest 0-based column index accepted (a spreadsheet's last column). */
const MAX_COLUMN_INDEX = 16_383;
const MAX_COLUMN_NAME_CHARS = 255;

/**
 * Body of `POST /v1/job_inputs` (spec-batch-api §2 "CSV input slot"). A column is a header name
 * (with `csv.header: true`) or a 0-based index (without a header). Columns are checked by hand so
 * that a missing or mistyped one is a 400 and a bad value a 422, as everywhere (body-validation.ts).
 */
export const createJobInputBody = z
  .strictObject({
    type: z.literal('csv', { error: 'must be "csv"' }),
    csv: z.strictObject({
      header: z.boolean(),
      fields: z.strictObject({ url: z.unknown().optional(), external_id: z.unknown().optional() }),
    }),
  })
  .superRefine((body, ctx) => {
    const { header, fields } = body.csv;
    const check = (name: 'url' | 'external_id', value: unknown) => {
      const path = ['csv', 'fields', name];
      const expected = header ? 'string' : 'number';
      if (value === undefined || typeof value !== expected) {
        const what = header ? 'a header name (string) when `csv.header` is true' : 'a 0-based column index (integer) when `csv.header` is false';
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
      fields: {
        url: body.csv.fields.url as string | number,
        externalId: (body.csv.fields.external_id ?? null) as string | number | null,
      },
    },
  }));
export type CreateJobInputBody = z.output<typeof createJobInputBody>;
