import { RequestError, RequestErrorCode } from '../problems/request.errors';

/**
 * What the public Node SDK of the API (npm `zenrows`) calls `service_params` on a job and on a
 * task. Taken on input so that its users switch by changing the base URL; answers always say
 * `service_params`, the specs' name (docs/decisions/batch-api.md, "Parameter names").
 */
export const SERVICE_PARAMS_SYNONYM = 'zenrows_params';

/** Why a job's or a task's parameters could not be read under one name. */
export const BOTH_PARAM_NAMES = `\`service_params\` and \`${SERVICE_PARAMS_SYNONYM}\` are one field under two names: send one of them`;

/**
 * The object with `zenrows_params` renamed `service_params` (the same object when it has no such
 * key, a shallow copy otherwise); `undefined` when it has both names. Anything but a plain object
 * is returned as it is, for the schema to judge.
 */
export function withSpecParamName(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !(SERVICE_PARAMS_SYNONYM in value)) return value;
  const { [SERVICE_PARAMS_SYNONYM]: params, ...rest } = value as Record<string, unknown>;
  if ('service_params' in rest) return undefined;
  return { ...rest, service_params: params };
}

/**
 * A job body with the job-level synonym renamed (tasks are renamed one by one by `checkTasks`, which
 * names a task that uses both).
 *
 * @throws RequestError 422 `invalid_parameter` naming both fields when both are given.
 */
export function jobBodyWithSpecParamName(body: unknown): unknown {
  const renamed = withSpecParamName(body);
  if (renamed === undefined) {
    throw new RequestError(RequestErrorCode.ParameterOutOfRange, `${BOTH_PARAM_NAMES}.`, { parameter: SERVICE_PARAMS_SYNONYM });
  }
  return renamed;
}
