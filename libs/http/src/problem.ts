import { randomUUID } from 'node:crypto';

/** RFC 9457 problem details, as every Trawl API error is served (`application/problem+json`). */
export interface ProblemDetails {
  type: string;
  code: string;
  title: string;
  status: number;
  detail: string;
  /** Identifier of this occurrence, also in the logs: what a tenant quotes to support. */
  instance: string;
  [extension: string]: unknown;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const TYPE_BASE = 'https://docs.trawl.dev/errors/';

/** Builds a problem with a fresh `instance` id. */
export function problem(
  status: number,
  code: string,
  title: string,
  detail: string,
  extensions: Record<string, unknown> = {},
): ProblemDetails {
  return {
    type: `${TYPE_BASE}${code}`,
    code,
    title,
    status,
    detail,
    instance: `urn:trawl:request:${randomUUID()}`,
    ...extensions,
  };
}
