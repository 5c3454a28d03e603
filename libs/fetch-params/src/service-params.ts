import type { BatchTaskMethod } from '@trawl/contracts';
import { FetchQuery, parseFetchParams, QueryParameters } from './fetch-params';
import { FetchParamsError } from './fetch-params.errors';
import { DEFAULT_BODY_CONTENT_TYPE, isForwardableHeader } from './forwarded-headers';

/** Fetch parameters `service_params` cannot carry: they are the task's own fields, or the key. */
const NOT_SERVICE_PARAMS = new Set(['url', 'apikey']);

/** `service_params` read as a Fetch request: the parsed query and the headers to send the target. */
export interface ServiceParamsRequest {
  query: FetchQuery;
  /**
   * Headers named in `custom_headers` when it is an object (spec-batch-api §2: the `Content-Type`
   * of a POST or PUT target is set there); lowercase names, hop-by-hop and credential headers left out.
   */
  headers: Record<string, string>;
}

/**
 * Reads job-level `service_params` merged with a task's own (the task's keys win) for one target
 * URL, with the Fetch API's own rules (spec-batch-api §2: the same keys; scalar switches as
 * strings). Values may be strings, booleans, numbers, or JSON values (`js_instructions`,
 * `css_extractor`, lists), read as their JSON text, the way the Fetch API receives them in the
 * query; lists of scalars read as the Fetch API's comma lists. `custom_headers` is either the Fetch
 * API's switch (`"true"`, which has no caller request to forward here) or an object of headers.
 *
 * @throws FetchParamsError `REQS004` naming the parameter, `RESP004` for `css_extractor`.
 */
export function parseServiceParams(
  url: string,
  jobParams: Record<string, unknown>,
  taskParams: Record<string, unknown> | null = null,
): ServiceParamsRequest {
  const merged = { ...jobParams, ...(taskParams ?? {}) };
  const query: QueryParameters = { url };
  let headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(merged)) {
    if (NOT_SERVICE_PARAMS.has(name)) {
      throw new FetchParamsError('REQS004', `\`${name}\` is not a service parameter: it is set by the task.`, { parameter: name });
    }
    if (value === null || value === undefined) continue;
    if (name === 'custom_headers' && typeof value === 'object') {
      headers = customHeadersOf(value);
      continue;
    }
    query[name] = asQueryValue(value);
  }
  return { query: parseFetchParams(query), headers };
}

/** What a worker needs to fetch one batch task, the Fetch API's way. */
export interface TaskFetchInputs {
  url: string;
  hostname: string;
  method: BatchTaskMethod;
  headers: Record<string, string>;
  bodyBase64?: string;
  query: FetchQuery;
}

/**
 * A batch task as a Fetch request: its URL, method and body, and the options and headers of its
 * merged `service_params`. A `POST` or `PUT` body goes with its `Content-Type` from
 * `custom_headers`, or `application/x-www-form-urlencoded`, as the Fetch API sends one.
 *
 * @throws FetchParamsError as {@link parseServiceParams}
 */
export function taskFetchInputs(
  task: { url: string; method: BatchTaskMethod; body: string | null },
  jobParams: Record<string, unknown>,
  taskParams: Record<string, unknown> | null,
): TaskFetchInputs {
  const { query, headers } = parseServiceParams(task.url, jobParams, taskParams);
  const hasBody = task.method !== 'GET' && task.body !== null && task.body !== '';
  const sent = { ...headers };
  if (hasBody) sent['content-type'] ??= DEFAULT_BODY_CONTENT_TYPE;
  else delete sent['content-type'];
  return {
    url: query.url,
    hostname: query.hostname,
    method: task.method,
    headers: sent,
    ...(hasBody && { bodyBase64: Buffer.from(task.body!, 'utf8').toString('base64') }),
    query,
  };
}

function customHeadersOf(value: object): Record<string, string> {
  if (Array.isArray(value)) {
    throw new FetchParamsError('REQS004', '`custom_headers` must be `"true"`, `"false"` or an object of header names to values.', {
      parameter: 'custom_headers',
    });
  }
  const headers: Record<string, string> = {};
  for (const [name, raw] of Object.entries(value)) {
    const lower = name.trim().toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9a-z-]+$/.test(lower) || typeof raw !== 'string' || /[\r\n\0]/.test(raw)) {
      throw new FetchParamsError('REQS004', `\`custom_headers\` holds \`${name}\`, which is not a header name with a text value.`, {
        parameter: 'custom_headers',
      });
    }
    if (isForwardableHeader(lower)) headers[lower] = raw;
  }
  return headers;
}

function asQueryValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number')) {
    // `outputs: ["emails", "links"]` and `allowed_status_codes: [404]` read as the Fetch API's comma lists…
    return value.join(',');
  }
  // …while `js_instructions` (an array of objects) and `css_extractor` (an object) are JSON, as in the query.
  return JSON.stringify(value);
}
