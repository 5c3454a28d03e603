import { z } from 'zod';
import { OUTPUT_FORMAT_MEDIA, OUTPUT_FORMATS, OUTPUT_NAMES, RESPONSE_TYPE_TITLES, type OutputFormat } from '../output-formats';
import { FETCH_PARAMETERS, type FetchParameter, type FetchParameterName } from '../fetch-parameters';
import { CHANGE_STATUSES } from '../fetch.messages';
import type { ApiResponse, ApiRoute } from './api-route';
import { PROBLEM_MEDIA_TYPE, problemDetails, problemResponses } from './problem.schema';

/** A parameter's value as it travels in the query string, for the document. */
function queryValueSchema(parameter: FetchParameter): z.ZodType {
  switch (parameter.kind) {
    case 'string': {
      let value = z.string().min(1);
      if (parameter.maxLength !== undefined) value = value.max(parameter.maxLength);
      if (parameter.pattern !== undefined) value = value.regex(new RegExp(parameter.pattern));
      return value;
    }
    case 'boolean':
      return z.boolean();
    case 'integer':
      return z.number().int().min(parameter.min).max(parameter.max);
    case 'enum':
      return z.enum(parameter.values as [string, ...string[]]);
    case 'list': {
      const special = [...(parameter.all ? ['*'] : []), ...(parameter.none ? ['none'] : [])];
      const item = `(?:${parameter.values.join('|')})`;
      const pattern = `^(?:${[...special.map((value) => value.replace('*', '\\*')), `${item}(?:,${item})*`].join('|')})$`;
      return z
        .string()
        .regex(new RegExp(pattern))
        .meta({ examples: [parameter.values.slice(0, 2).join(',')] });
    }
    case 'integer_list':
      return z.string().regex(/^\d{3}(,\d{3})*$/);
    case 'json':
      return z.string().meta({ contentMediaType: 'application/json' });
    case 'api_key':
      return z.string();
  }
}

/** The Fetch endpoint's query as the document shows it (without `apikey`, a security scheme). */
export const fetchQuery = z.object(
  Object.fromEntries(
    Object.entries(FETCH_PARAMETERS as Record<string, FetchParameter>)
      .filter(([, parameter]) => parameter.kind !== 'api_key')
      .map(([name, parameter]) => {
        const value = queryValueSchema(parameter).meta({ description: parameter.description });
        return [name, parameter.kind === 'string' && parameter.required ? value : value.optional()];
      }),
  ),
);

const headerMap = z.record(z.string(), z.union([z.string(), z.array(z.string())]));

/** `change_tracking=true` in a JSON answer: the verdict against the last version, and what changed. */
export const changeTrackingAnswer = z
  .object({
    status: z.enum(CHANGE_STATUSES),
    previous_fetched_at: z.iso.datetime().optional().meta({ description: 'When the version compared with was fetched.' }),
    diff: z
      .string()
      .optional()
      .meta({ description: 'Unified diff, previous → current, of the Markdown text (of the fields with `extract`); only when `changed`.' }),
  })
  .meta({ id: 'ChangeTracking', description: 'With `change_tracking=true`: this page against your last version of its URL.' });

/** `json_response=true` (fetch-details "json_response"). */
export const fetchJsonResponse = z
  .object({
    html: z.string(),
    xhr: z.array(
      z.looseObject({
        url: z.string(),
        body: z.string(),
        status_code: z.number().int(),
        method: z.string(),
        headers: headerMap,
        request_headers: headerMap,
      }),
    ),
    js_instructions_report: z
      .object({
        instructions_duration: z.number(),
        instructions_executed: z.number().int(),
        instructions_succeeded: z.number().int(),
        instructions_failed: z.number().int(),
        instructions: z.array(z.object({ instruction: z.string(), params: z.unknown(), success: z.boolean(), duration: z.number() })),
      })
      .optional(),
    screenshot: z
      .object({ data: z.string().meta({ contentEncoding: 'base64' }), type: z.string(), width: z.number(), height: z.number() })
      .optional(),
    change_tracking: changeTrackingAnswer.optional(),
  })
  .meta({ id: 'FetchJsonResponse', description: 'The answer with `json_response=true`.' });

/** `extract=auto` (spec-extract-fetch §2 "Extract response"). */
export const fetchExtractResponse = z
  .looseObject({ parsed: z.record(z.string(), z.unknown()), html: z.string(), change_tracking: changeTrackingAnswer.optional() })
  .meta({ id: 'FetchExtractResponse', description: 'The answer with `extract=auto`: `parsed` fields differ per website.' });

/** `css_extractor`: each name's match (a list when several nodes match). */
export const fetchCssExtractorResponse = z
  .record(z.string(), z.unknown())
  .meta({ id: 'FetchCssExtractorResponse', description: 'The answer with `css_extractor`: one key per name.' });

/** `outputs`: one key per asked output name. */
export const fetchOutputsResponse = z
  .object({
    ...Object.fromEntries(OUTPUT_NAMES.map((name) => [name, z.unknown().optional()])),
    change_tracking: changeTrackingAnswer.optional(),
  })
  .meta({ id: 'FetchOutputsResponse', description: 'The answer with `outputs`: one key per asked name.' });

/**
 * Components of the Fetch answer's JSON, by the parameter that asks for it. The document lists them
 * as the alternatives of `application/json`; a client (and the e2e suite) knows which one it asked for.
 */
export const FETCH_JSON_ANSWERS = {
  json_response: 'FetchJsonResponse',
  extract: 'FetchExtractResponse',
  css_extractor: 'FetchCssExtractorResponse',
  outputs: 'FetchOutputsResponse',
} as const satisfies Partial<Record<FetchParameterName, string>>;

const FETCH_USAGE_HEADERS = {
  'Concurrency-Limit': 'Concurrent requests the plan allows.',
  'Concurrency-Remaining': 'Free concurrency slots.',
  'X-Request-Cost': 'Cost of this request, in money.',
  'X-Request-Credits': 'Credits this request cost.',
  'X-Request-Id': 'Identifier of this request.',
};

const fetchAnswer: ApiResponse = {
  description:
    `The page: HTML by default (served as UTF-8); with \`response_type\`, ${RESPONSE_TYPE_TITLES}; with a screenshot, the image; ` +
    'with `json_response`, `extract`, `css_extractor` or `outputs`, JSON; a target that is not HTML (an image, a file) comes as the ' +
    "target sent it. The target's own headers come back prefixed `Zr-` (`Zr-Final-Url`, `Zr-Content-Type`, `Zr-Cookies`, …).",
  contentType: mediaOf('html'),
  headers: {
    ...FETCH_USAGE_HEADERS,
    'Zr-Final-Url': 'The URL the page was finally loaded from.',
    'X-Trawl-Cache': 'With `max_age`: `hit` when the answer comes from a kept copy, `miss` when the page was fetched now (and kept).',
    Age: 'With `max_age`, on a `hit`: seconds since the kept copy was fetched.',
    'X-Trawl-Change-Status': 'With `change_tracking`: `new`, `same`, `changed` or `removed`, against your last version of this URL.',
    'X-Trawl-Previous-Fetched-At': 'With `change_tracking`: when the version compared with was fetched (ISO 8601).',
  },
  alternatives: [
    {
      contentType: mediaOf('json'),
      schema: z
        .union([fetchJsonResponse, fetchExtractResponse, fetchCssExtractorResponse, fetchOutputsResponse, z.unknown()])
        .meta({ description: "One of the JSON answers, by the parameter asked; or a JSON target's own body." }),
    },
    ...otherAnswerMedia().map((contentType) => ({ contentType })),
    { contentType: '*/*', description: 'A target that is not HTML, as the target sent it.' },
  ],
};

/**
 * The problem answers of the Fetch endpoint, with the codes of spec-extract-fetch §7 in `code`. With
 * `original_status=true` or `allowed_status_codes`, the same statuses may carry the target's own answer.
 */
const fetchProblems: Record<number, ApiResponse> = Object.fromEntries(
  Object.entries(problemResponses(400, 401, 402, 403, 404, 405, 413, 422, 424, 429, 500, 502, 503, 504)).map(([status, problem]) => [
    status,
    {
      ...problem,
      description: `${problem.description}; or, with \`original_status\` or \`allowed_status_codes\`, the target's own answer`,
      alternatives: [{ contentType: '*/*', description: "The target's answer, as it sent it." }],
    },
  ]),
);

/** The Fetch answer with `original_status` or `allowed_status_codes`: the target's status and body. */
const targetStatusAnswer: ApiResponse = {
  description:
    "With `original_status=true` or `allowed_status_codes`, the target's own status and body; otherwise a problem of the Fetch codes.",
  contentType: '*/*',
  alternatives: [{ contentType: PROBLEM_MEDIA_TYPE, schema: problemDetails }],
};

function mediaOf(format: OutputFormat): string {
  return OUTPUT_FORMAT_MEDIA[format].contentType.split(';')[0]!;
}

/**
 * The media types of every output format but HTML and JSON (listed first, JSON with its schemas),
 * once each: taken from `OUTPUT_FORMAT_MEDIA`, so a new response type or screenshot format is
 * documented as it is added.
 */
function otherAnswerMedia(): string[] {
  const listed = new Set([mediaOf('html'), mediaOf('json')]);
  return [...new Set(OUTPUT_FORMATS.map(mediaOf))].filter((media) => !listed.has(media));
}

function fetchRoute(method: 'get' | 'post' | 'put'): ApiRoute {
  return {
    method,
    path: '/v1/',
    operationId: `fetch${method === 'get' ? 'Page' : method === 'post' ? 'PageWithPost' : 'PageWithPut'}`,
    summary: method === 'get' ? 'Fetch a page' : `Fetch a page with ${method.toUpperCase()}, sending the body to the target`,
    description:
      'Every option is a query parameter. Errors carry the codes of the Fetch API (`REQS004`, `AUTH006`, `RESP001`, …) and the usage headers.',
    tag: 'Fetch',
    query: fetchQuery,
    ...(method !== 'get' && {
      body: { contentType: '*/*', description: 'Sent to the target as is (`application/x-www-form-urlencoded` when untyped).' },
    }),
    responses: { 200: fetchAnswer, ...fetchProblems, default: targetStatusAnswer },
  };
}

/** Any other verb on the Fetch endpoint is `405 REQS005` (spec-extract-fetch §7). */
function refusedFetchRoute(method: 'delete' | 'patch' | 'head' | 'options'): ApiRoute {
  return {
    method,
    path: '/v1/',
    operationId: `fetchWith${method[0]!.toUpperCase()}${method.slice(1)}`,
    summary: `Refused: the Fetch endpoint takes GET, POST and PUT (\`${method.toUpperCase()}\` answers 405 \`REQS005\`)`,
    tag: 'Fetch',
    responses: { ...problemResponses(400, 405, 429) },
  };
}

/** The Fetch endpoint (`/v1/`, also answered at `/v1`). */
export const fetchRoutes: ApiRoute[] = [
  fetchRoute('get'),
  fetchRoute('post'),
  fetchRoute('put'),
  refusedFetchRoute('delete'),
  refusedFetchRoute('patch'),
  refusedFetchRoute('head'),
  refusedFetchRoute('options'),
];
