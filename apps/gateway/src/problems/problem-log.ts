import type { Logger } from '@trawl/observability';

/**
 * What the log says about one problem answer, so support finds it from the `instance` a tenant
 * quotes. Never the URL (it may carry `apikey=`), a header or a body: only the route pattern.
 */
export type ProblemLogFields = {
  instance: string;
  status: number;
  /** The wire `code` of the answer. */
  code: string;
  method: string;
  /** The route pattern (`/v1/crawls/:id`), `(no route)` when none matched, `proxy_mode` for proxied requests. */
  route: string;
  /** The authenticated tenant; absent when the refusal came before (or was) authentication. */
  tenant_id?: string;
};

/**
 * Logs a refusal — a 4xx, or a 5xx whose detail is public (capacity, deadline) — at a level an
 * operator keeps: `info` for 4xx, `warn` for 5xx. One line per refusal, nothing for answers that
 * succeed. Internal failures are logged as errors by their own callers, with the cause.
 */
export function logRefusal(logger: Logger, fields: ProblemLogFields & Record<string, unknown>, message = 'request refused'): void {
  if (fields.status >= 500) logger.warn(fields, message);
  else logger.info(fields, message);
}
