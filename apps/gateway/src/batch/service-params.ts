import type { QueryParameters } from '../problems/query-parameters';
import { FetchError } from '../fetch/fetch.errors';
import { FetchQuery, parseFetchQuery, targetUrl } from '../fetch/fetch-query';

/** Fetch parameters a task cannot carry in `service_params`: they are the task's own fields or the key. */
const NOT_SERVICE_PARAMS = new Set(['url', 'apikey']);

/** Why a `service_params` object was refused, naming the key. */
export interface ServiceParamsProblem {
  /** The offending key (`js_render`), or the object itself when it is not one. */
  parameter: string;
  reason: string;
}

/**
 * Checks job-level `service_params` merged with a task's own for one target URL, with the Fetch
 * API's own rules (spec-batch-api §2: the same keys; scalar switches as strings). Values may be
 * strings, booleans, numbers, or (for `js_instructions`, `css_extractor`, lists) JSON values, which
 * are read as their JSON text, the way the Fetch API receives them in the query.
 */
export function checkServiceParams(
  url: string,
  jobParams: Record<string, unknown>,
  taskParams: Record<string, unknown> = {},
): { ok: true; query: FetchQuery } | { ok: false; problem: ServiceParamsProblem } {
  const merged = { ...jobParams, ...taskParams };
  const query: QueryParameters = { url };
  for (const [name, value] of Object.entries(merged)) {
    if (NOT_SERVICE_PARAMS.has(name)) {
      return { ok: false, problem: { parameter: name, reason: `\`${name}\` is not a service parameter: it is set by the task.` } };
    }
    if (value === null || value === undefined) continue;
    query[name] = asQueryValue(value);
  }
  try {
    return { ok: true, query: parseFetchQuery(query) };
  } catch (error) {
    if (!(error instanceof FetchError)) throw error;
    const parameter = typeof error.extensions.parameter === 'string' ? error.extensions.parameter : 'service_params';
    return { ok: false, problem: { parameter, reason: error.detail } };
  }
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

/** A task's target URL checked as the Fetch API checks `url`; its href, or why not. */
export function checkTargetUrl(url: string): { ok: true; href: string } | { ok: false; reason: string } {
  try {
    return { ok: true, href: targetUrl(url).url };
  } catch (error) {
    if (error instanceof FetchError) return { ok: false, reason: error.detail };
    throw error;
  }
}
