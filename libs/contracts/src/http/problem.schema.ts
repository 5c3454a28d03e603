import { z } from 'zod';

/** RFC 9457 problem details, as every Trawl API error is served (`application/problem+json`). */
export const problemDetails = z
  .looseObject({
    type: z.string(),
    /** Trawl's stable error code (`CRAWL001`, `REQS002`, …): what clients branch on. */
    code: z.string(),
    title: z.string(),
    status: z.number().int().min(400).max(599),
    detail: z.string(),
    /** Identifier of this occurrence, also in the logs: what a tenant quotes to support. */
    instance: z.string(),
  })
  .meta({ id: 'Problem', description: 'An error answer (RFC 9457), served as `application/problem+json`.' });
export type ProblemDetailsBody = z.infer<typeof problemDetails>;

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Error answers of a route: each status served as problem+json. */
export function problemResponses(
  ...statuses: number[]
): Record<number, { description: string; contentType: string; schema: typeof problemDetails }> {
  const responses: Record<number, { description: string; contentType: string; schema: typeof problemDetails }> = {};
  for (const status of statuses)
    responses[status] = { description: `Error (${status})`, contentType: PROBLEM_MEDIA_TYPE, schema: problemDetails };
  return responses;
}
