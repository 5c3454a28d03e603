import type { CreateJobInputRequest, JobInputSlot, UploadedJobInput } from '../generated/api-types';
import type { Transport } from '../http/transport';

/** CSV inputs of batch jobs: a slot is made, the file is sent to its signed URL, a job names it. */
export class JobInputsResource {
  constructor(private readonly transport: Transport) {}

  /** Makes an upload slot for one CSV file (valid until `expires_at`). */
  create(request: CreateJobInputRequest, options: { signal?: AbortSignal } = {}): Promise<JobInputSlot> {
    return this.transport.json<JobInputSlot>({
      method: 'POST',
      path: '/v1/job_inputs',
      json: request,
      retrySafe: false,
      signal: options.signal,
    });
  }

  /**
   * Sends the CSV to the slot's signed URL with the headers it asks for; the rows are checked
   * there (`422 csv_invalid_rows` lists the bad ones). Retried: a slot takes one file, whole.
   */
  upload(slot: Pick<JobInputSlot, 'upload'>, csv: string | Uint8Array, options: { signal?: AbortSignal } = {}): Promise<UploadedJobInput> {
    const headers = { ...slot.upload.headers };
    const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? 'text/csv';
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
    return this.transport.json<UploadedJobInput>({
      method: 'PUT',
      path: this.transport.url(slot.upload.url).toString(),
      body: { data: csv, contentType },
      headers,
      authenticated: false,
      retrySafe: true,
      signal: options.signal,
    });
  }

  /** `create` then `upload`: the uploaded input, ready to be named by a job's `file_input_id`. */
  async uploadCsv(
    csv: string | Uint8Array,
    request: Partial<CreateJobInputRequest> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<UploadedJobInput> {
    const slot = await this.create(
      { type: 'csv', csv: { header: true, fields: { url: 'url' } }, ...request } as CreateJobInputRequest,
      options,
    );
    return this.upload(slot, csv, options);
  }
}
