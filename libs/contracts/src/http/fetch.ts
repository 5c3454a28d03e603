import { z } from 'zod';
import { BLOCKABLE_RESOURCES } from '../fetch.messages';
import { OUTPUT_FORMAT_MEDIA, OUTPUT_NAMES, RESPONSE_TYPES, SCREENSHOT_FORMATS } from '../output-formats';
import type { ApiResponse, ApiRoute } from './api-route';
import { PROBLEM_MEDIA_TYPE, problemDetails, problemResponses } from './problem.schema';

/**
 * How one query parameter of the Fetch endpoint is read. The Fetch parser (`@trawl/fetch-params`)
 * takes each parameter's bounds and values from here, and the OpenAPI document describes the
 * parameters from here: one list, no copy.
 */
export type FetchParameter = { description: string } & (
  | { kind: 'string'; maxLength?: number; pattern?: string; required?: boolean }
  | { kind: 'boolean' }
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'enum'; values: readonly string[] }
  /** A comma-separated list of `values`; `*` means all of them when `all`, `none` means none when `none`. */
  | { kind: 'list'; values: readonly string[]; all?: boolean; none?: boolean }
  /** A comma-separated list of integers within bounds. */
  | { kind: 'integer_list'; min: number; max: number }
  /** URL-encoded JSON. */
  | { kind: 'json' }
  /** The API key (also accepted as `X-API-Key`): a security scheme of the document, not a parameter. */
  | { kind: 'api_key' }
);

/** Every query parameter of the Fetch endpoint (fetch-details.md), `apikey` included. */
export const FETCH_PARAMETERS = {
  apikey: { kind: 'api_key', description: 'The API key (or send it in `X-API-Key`).' },
  url: {
    kind: 'string',
    required: true,
    maxLength: 8_192,
    description: 'The page to fetch: an absolute http or https URL, URL-encoded.',
  },
  js_render: { kind: 'boolean', description: 'Load the page in a browser (5 credits; 25 with `premium_proxy`).' },
  premium_proxy: { kind: 'boolean', description: 'Go through a premium (residential) proxy (10 credits; 25 with `js_render`).' },
  proxy_country: {
    kind: 'string',
    pattern: '^[A-Za-z]{2}$',
    description: 'ISO 3166-1 alpha-2 country of the premium proxy; needs `premium_proxy=true` or `mode=auto`.',
  },
  mode: {
    kind: 'enum',
    values: ['auto'],
    description: 'Adaptive stealth: the service picks the cheapest configuration that passes; not with `js_render`/`premium_proxy`.',
  },
  session_id: { kind: 'integer', min: 0, max: 99_999, description: 'Keeps the same egress IP for 10 minutes from its first use.' },
  js_instructions: {
    kind: 'json',
    description: 'A JSON array of one-key browser instructions (`click`, `wait_for`, `fill`, …), run in order; needs `js_render`.',
  },
  wait_for: { kind: 'string', description: 'A CSS selector (or XPath starting `//`) to wait for; needs `js_render`.' },
  wait: { kind: 'integer', min: 0, max: 30_000, description: 'Milliseconds to wait after the page loaded; needs `js_render`.' },
  block_resources: {
    kind: 'list',
    values: BLOCKABLE_RESOURCES,
    none: true,
    description: 'Resource types the browser does not load, comma-separated, or `none`; needs `js_render`.',
  },
  json_response: {
    kind: 'boolean',
    description: 'Answer JSON `{html, xhr, js_instructions_report?, screenshot?}` instead of the page.',
  },
  css_extractor: {
    kind: 'json',
    description: 'A JSON object of names to CSS selectors (` @attr` suffix for an attribute); answers JSON keyed by name.',
  },
  response_type: { kind: 'enum', values: RESPONSE_TYPES, description: 'The page as Markdown, plain text or PDF (`pdf` needs `js_render`).' },
  outputs: {
    kind: 'list',
    values: OUTPUT_NAMES,
    all: true,
    description: 'Data to extract, comma-separated, or `*`; answers JSON keyed by output name.',
  },
  screenshot: { kind: 'boolean', description: 'Answer a screenshot of the viewport; needs `js_render`.' },
  screenshot_fullpage: { kind: 'boolean', description: 'Answer a screenshot of the whole page; needs `js_render`.' },
  screenshot_selector: { kind: 'string', description: 'Answer a screenshot of this element; needs `js_render`.' },
  screenshot_format: { kind: 'enum', values: SCREENSHOT_FORMATS, description: 'Image format of the screenshot (default `png`).' },
  screenshot_quality: { kind: 'integer', min: 1, max: 100, description: 'JPEG quality; needs `screenshot_format=jpeg`.' },
  device: { kind: 'enum', values: ['desktop', 'mobile'], description: 'The device the browser presents as.' },
  window_width: { kind: 'integer', min: 100, max: 10_000, description: 'Browser window width in pixels; needs `js_render`.' },
  window_height: { kind: 'integer', min: 100, max: 10_000, description: 'Browser window height in pixels; needs `js_render`.' },
  original_status: { kind: 'boolean', description: "Answer the target's failing status and body instead of the service's error." },
  allowed_status_codes: {
    kind: 'integer_list',
    min: 100,
    max: 599,
    description: "Target statuses answered with the target's body (and billed), comma-separated.",
  },
  custom_headers: { kind: 'boolean', description: "Forward the caller's request headers to the target." },
  autoparse: { kind: 'boolean', description: 'Deprecated: same as `extract=auto`.' },
  extract: {
    kind: 'enum',
    values: ['auto'],
    description: 'Structured extraction for a prepared domain: answers JSON `{parsed, html}` (beta).',
  },
} as const satisfies Record<string, FetchParameter>;
export type FetchParameterName = keyof typeof FETCH_PARAMETERS;

/** The names of {@link FETCH_PARAMETERS}: every query parameter the Fetch endpoint accepts. */
export const FETCH_QUERY_PARAMETERS = Object.keys(FETCH_PARAMETERS) as FetchParameterName[];

/** The names of the parameters of one kind (`'integer'` → `'session_id' | 'wait' | …`). */
export type FetchParameterOfKind<K extends FetchParameter['kind']> = {
  [N in FetchParameterName]: (typeof FETCH_PARAMETERS)[N]['kind'] extends K ? N : never;
}[FetchParameterName];

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
      return z.string().regex(new RegExp(pattern)).meta({ examples: [parameter.values.slice(0, 2).join(',')] });
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
        instructions: z.array(
          z.object({ instruction: z.string(), params: z.unknown(), success: z.boolean(), duration: z.number() }),
        ),
      })
      .optional(),
    screenshot: z
      .object({ data: z.string().meta({ contentEncoding: 'base64' }), type: z.string(), width: z.number(), height: z.number() })
      .optional(),
  })
  .meta({ id: 'FetchJsonResponse', description: 'The answer with `json_response=true`.' });

/** `extract=auto` (spec-extract-fetch §2 "Extract response"). */
export const fetchExtractResponse = z
  .looseObject({ parsed: z.record(z.string(), z.unknown()), html: z.string() })
  .meta({ id: 'FetchExtractResponse', description: 'The answer with `extract=auto`: `parsed` fields differ per website.' });

/** `css_extractor`: each name's match (a list when several nodes match). */
export const fetchCssExtractorResponse = z
  .record(z.string(), z.unknown())
  .meta({ id: 'FetchCssExtractorResponse', description: 'The answer with `css_extractor`: one key per name.' });

/** `outputs`: one key per asked output name. */
export const fetchOutputsResponse = z
  .object(Object.fromEntries(OUTPUT_NAMES.map((name) => [name, z.unknown().optional()])))
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
    "The page: HTML by default (served as UTF-8); with `response_type`, Markdown, plain text or PDF; with a screenshot, the image; " +
    'with `json_response`, `extract`, `css_extractor` or `outputs`, JSON; a target that is not HTML (an image, a file) comes as the ' +
    "target sent it. The target's own headers come back prefixed `Zr-` (`Zr-Final-Url`, `Zr-Content-Type`, `Zr-Cookies`, …).",
  contentType: 'text/html',
  headers: { ...FETCH_USAGE_HEADERS, 'Zr-Final-Url': 'The URL the page was finally loaded from.' },
  alternatives: [
    {
      contentType: 'application/json',
      schema: z
        .union([fetchJsonResponse, fetchExtractResponse, fetchCssExtractorResponse, fetchOutputsResponse, z.unknown()])
        .meta({ description: "One of the JSON answers, by the parameter asked; or a JSON target's own body." }),
    },
    { contentType: mediaOf('markdown') },
    { contentType: mediaOf('plaintext') },
    { contentType: mediaOf('pdf') },
    { contentType: mediaOf('png') },
    { contentType: mediaOf('jpeg') },
    { contentType: '*/*', description: "A target that is not HTML, as the target sent it." },
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

function mediaOf(format: keyof typeof OUTPUT_FORMAT_MEDIA): string {
  return OUTPUT_FORMAT_MEDIA[format].contentType.split(';')[0]!;
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
