import { z } from 'zod';
import { RequestError, RequestErrorCode } from './request.errors';

/**
 * Validates a JSON body against a strict zod schema and turns the first problem into the API's
 * error, naming the field (spec-crawl-api §7):
 * - a field the endpoint does not accept → 400 `unknown_parameter`;
 * - a field missing or of the wrong type → 400 `invalid_parameter`;
 * - a value of the right type but out of range → 422 `invalid_parameter`.
 * An unknown field wins over a bad value, and a type error over a range error, so the caller fixes
 * the most basic mistake first. `null` in an optional field means "left out" (schemas use `nullish`).
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  if (body === undefined || body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new RequestError(RequestErrorCode.InvalidRequest, 'The request body must be a JSON object.');
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  throw bodyError(parsed.error.issues, body);
}

function bodyError(issues: readonly z.core.$ZodIssue[], body: object): RequestError {
  const unknown = issues.find((issue) => issue.code === 'unrecognized_keys');
  if (unknown) {
    const name = fieldName([...unknown.path, unknown.keys[0] ?? '']);
    return new RequestError(RequestErrorCode.UnknownParameter, `\`${name}\` is not a parameter of this endpoint; remove it.`, {
      parameter: name,
    });
  }
  const typeIssue = issues.find((issue) => issue.code === 'invalid_type');
  if (typeIssue) {
    const name = fieldName(typeIssue.path);
    const missing = valueAt(body, typeIssue.path) === undefined;
    return new RequestError(RequestErrorCode.InvalidParameter, missing ? `\`${name}\` is required.` : `\`${name}\` ${typeIssue.message}.`, {
      parameter: name,
    });
  }
  const issue = issues[0];
  const name = fieldName(issue?.path ?? []);
  return new RequestError(RequestErrorCode.ParameterOutOfRange, `\`${name}\` ${issue?.message ?? 'is not valid'}.`, {
    parameter: name,
  });
}

/** `include_patterns[2]`, `a.b`: how a field is named in a detail. */
export function fieldName(path: readonly PropertyKey[]): string {
  return path.reduce<string>((name, key) => {
    if (typeof key === 'number') return `${name}[${key}]`;
    return name ? `${name}.${String(key)}` : String(key);
  }, '');
}

function valueAt(body: unknown, path: readonly PropertyKey[]): unknown {
  let value: unknown = body;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** For endpoints without a body: nothing, or an empty JSON object, is accepted. */
export function assertNoBody(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new RequestError(RequestErrorCode.InvalidRequest, 'This endpoint takes no request body.');
  }
  const [name] = Object.keys(body);
  if (name !== undefined) {
    throw new RequestError(RequestErrorCode.UnknownParameter, `\`${name}\` is not a parameter of this endpoint; remove it.`, {
      parameter: name,
    });
  }
}
