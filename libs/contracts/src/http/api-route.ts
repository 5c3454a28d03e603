import type { z } from 'zod';

/**
 * One operation of the public HTTP API, as the OpenAPI document (`openapi.ts`) describes it. Each
 * feature's file in this folder exports its routes beside the zod schemas that validate their
 * requests, so the document, the validation and the TypeScript types come from one place.
 */
export interface ApiRoute {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete' | 'head' | 'options';
  /** OpenAPI path template, e.g. `/v1/crawls/{crawlId}`. */
  path: string;
  /** Unique camelCase name (`getCrawl`): SDK generators name methods after it. */
  operationId: string;
  summary: string;
  description?: string;
  /** Grouping in the document (`Crawl`, `Batch`, `Fetch`, `Account`, …). */
  tag: string;
  /** Path parameters by name (every `{name}` of `path`). */
  params?: z.ZodObject;
  /** Query parameters, each a scalar or an array of scalars. */
  query?: z.ZodObject;
  /** Request headers the route reads (`Idempotency-Key`), by name; the API key's are the security schemes'. */
  headers?: z.ZodObject;
  /** The JSON request body, or another media type (a CSV upload) with its schema. */
  body?: z.ZodType | { contentType: string; schema?: z.ZodType; description?: string };
  /** Answers by status. A JSON answer is a schema; other media types say what they carry. */
  responses: Record<number, ApiResponse> & { default?: ApiResponse };
  /** False for routes that need no API key (the document itself, signed download URLs). Default true. */
  authenticated?: boolean;
}

/**
 * A JSON answer as its schema, or an answer of another media type. `contentType` left out means no
 * body (a 204). With `application/x-ndjson`, `schema` describes one line. `headers`: name → description.
 * `alternatives`: further media types of the same status (the Fetch endpoint answers a page, JSON or an image).
 */
export type ApiResponse =
  | z.ZodType
  | {
      description: string;
      contentType?: string;
      schema?: z.ZodType;
      headers?: Record<string, string>;
      alternatives?: { contentType: string; schema?: z.ZodType; description?: string }[];
    };
