import { checkTargetUrl as readTargetUrl, FetchParamsError, FetchQuery, parseServiceParams } from '@trawl/fetch-params';

/** Why a `service_params` object was refused, naming the key. */
export interface ServiceParamsProblem {
  /** The offending key (`js_render`), or the object itself when it is not one. */
  parameter: string;
  reason: string;
}

/**
 * Checks job-level `service_params` merged with a task's own for one target URL with exactly the
 * rules the scheduler executes them by (`@trawl/fetch-params` `parseServiceParams`: the Fetch API's
 * parameters; `custom_headers` as the switch or an object of headers), answering instead of throwing
 * so that every bad task of a submission can be listed.
 */
export function checkServiceParams(
  url: string,
  jobParams: Record<string, unknown>,
  taskParams: Record<string, unknown> = {},
): { ok: true; query: FetchQuery } | { ok: false; problem: ServiceParamsProblem } {
  try {
    return { ok: true, query: parseServiceParams(url, jobParams, taskParams).query };
  } catch (error) {
    if (!(error instanceof FetchParamsError)) throw error;
    const parameter = typeof error.extensions.parameter === 'string' ? error.extensions.parameter : 'service_params';
    return { ok: false, problem: { parameter, reason: error.detail } };
  }
}

/** A task's target URL checked as the Fetch API checks `url`; its href, or why not. */
export function checkTargetUrl(url: string): { ok: true; href: string } | { ok: false; reason: string } {
  try {
    return { ok: true, href: readTargetUrl(url).url };
  } catch (error) {
    if (error instanceof FetchParamsError) return { ok: false, reason: error.detail };
    throw error;
  }
}
