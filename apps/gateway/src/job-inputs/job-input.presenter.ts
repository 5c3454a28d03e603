import type { JobInputSlotAnswer, UploadedJobInputAnswer } from '@trawl/contracts/http';
import type { CreatedJobInput } from './job-inputs.service';
import type { JobInputRecord } from './job-inputs.repository';

/** `POST /v1/job_inputs`'s answer (spec-batch-api §2 "CSV input slot"). */
export function presentCreatedJobInput(created: CreatedJobInput): JobInputSlotAnswer {
  return {
    file_input_id: created.input.id,
    type: 'csv',
    csv: presentCsv(created.input),
    state: created.input.state,
    upload: created.upload,
    expires_at: created.input.expiresAt.toISOString(),
  };
}

/** The upload's answer. */
export function presentUploadedJobInput(input: JobInputRecord, rows: number): UploadedJobInputAnswer {
  return { file_input_id: input.id, state: input.state, rows, expires_at: input.expiresAt.toISOString() };
}

function presentCsv(input: JobInputRecord): JobInputSlotAnswer['csv'] {
  return {
    header: input.header,
    delimiter: input.delimiter,
    quote: input.quote,
    fields: { url: input.fields.url, ...(input.fields.externalId !== null && { external_id: input.fields.externalId }) },
  };
}
