import { BLOCKABLE_RESOURCES, MAX_AGE_SECONDS } from './fetch.messages';
import { OUTPUT_NAMES, RESPONSE_TYPE_TITLES, RESPONSE_TYPE_TRAITS, RESPONSE_TYPES, SCREENSHOT_FORMATS } from './output-formats';

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

/** "The page as Markdown, plain text or PDF (`pdf` needs `js_render`).": from the traits, so a new type is described as it is added. */
function responseTypeDescription(): string {
  const printed = RESPONSE_TYPES.filter((type) => RESPONSE_TYPE_TRAITS[type].printed).map((type) => `\`${type}\``);
  const needs =
    printed.length === 0
      ? ''
      : ` (${new Intl.ListFormat('en-GB').format(printed)} ${printed.length === 1 ? 'needs' : 'need'} \`js_render\`)`;
  return `The page as ${RESPONSE_TYPE_TITLES}${needs}.`;
}

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
  response_type: { kind: 'enum', values: RESPONSE_TYPES, description: responseTypeDescription() },
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
  change_tracking: {
    kind: 'boolean',
    description:
      'Compare the page with the last version of this URL you fetched with `change_tracking`: `X-Trawl-Change-Status` ' +
      '(`new`, `same`, `changed`, `removed`) and `X-Trawl-Previous-Fetched-At`; a JSON answer (`json_response`, `outputs`, ' +
      '`css_extractor`, `extract`) also carries `change_tracking` with the diff of the Markdown text (of the fields with `extract`).',
  },
  max_age: {
    kind: 'integer',
    min: 0,
    max: MAX_AGE_SECONDS,
    description:
      'Seconds: answer from a copy of the same GET request (URL, headers, every option) fetched for you within this time, ' +
      'marked `X-Trawl-Cache: hit` with its `Age`, at 1 credit; otherwise fetch and keep a copy. 0 or absent: always fetch.',
  },
  autoparse: { kind: 'boolean', description: 'Deprecated: same as `extract=auto`.' },
  extract: {
    kind: 'enum',
    values: ['auto'],
    description: 'Structured extraction for a prepared domain: answers JSON `{parsed, html}` (beta).',
  },
} as const satisfies Record<string, FetchParameter>;
export type FetchParameterName = keyof typeof FETCH_PARAMETERS;

/** The names of the parameters of one kind (`'integer'` → `'session_id' | 'wait' | …`). */
export type FetchParameterOfKind<K extends FetchParameter['kind']> = {
  [N in FetchParameterName]: (typeof FETCH_PARAMETERS)[N]['kind'] extends K ? N : never;
}[FetchParameterName];
