import { RequestError, RequestErrorCode } from './request.errors';

/** Query string as Fastify parses it: a repeated parameter becomes an array. */
export type QueryParameters = Record<string, string | string[] | undefined>;

/** Accepted on every authenticated endpoint: one of the two places the API key may travel. */
const API_KEY_PARAMETER = 'apikey';

/**
 * Refuses any query parameter the endpoint does not accept (400 `unknown_parameter`, named).
 * `apikey` is accepted unless `apiKeyParameter` is false (routes not authenticated by API key).
 */
export function assertKnownQueryParameters(
  query: QueryParameters | undefined,
  accepted: readonly string[],
  { apiKeyParameter = true }: { apiKeyParameter?: boolean } = {},
): void {
  for (const name of Object.keys(query ?? {})) {
    if (!(apiKeyParameter && name === API_KEY_PARAMETER) && !accepted.includes(name)) {
      throw new RequestError(RequestErrorCode.UnknownParameter, `\`${name}\` is not a query parameter of this endpoint; remove it.`, {
        parameter: name,
      });
    }
  }
}

/** A query parameter given once, or `undefined`; given twice it is a 400 `invalid_request`. */
export function singleQueryValue(query: QueryParameters | undefined, name: string): string | undefined {
  const value = query?.[name];
  if (Array.isArray(value)) {
    throw new RequestError(RequestErrorCode.InvalidRequest, `Give \`${name}\` at most once.`, { parameter: name });
  }
  return value;
}

/** An integer query parameter within bounds (400 `invalid_request` otherwise), or its default. */
export function intQueryParameter(
  query: QueryParameters | undefined,
  name: string,
  { min, max, fallback }: { min: number; max: number; fallback: number },
): number {
  const raw = singleQueryValue(query, name);
  if (raw === undefined) return fallback;
  const value = /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) {
    throw new RequestError(
      RequestErrorCode.InvalidRequest,
      `\`${name}\` must be an integer from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}.`,
      { parameter: name },
    );
  }
  return value;
}

/** `true` or `false` (400 `invalid_request` otherwise), or the default when absent. */
export function booleanQueryParameter(query: QueryParameters | undefined, name: string, fallback: boolean): boolean {
  const raw = singleQueryValue(query, name);
  if (raw === undefined) return fallback;
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  throw new RequestError(RequestErrorCode.InvalidRequest, `\`${name}\` must be \`true\` or \`false\`.`, {
    parameter: name,
  });
}
