import { z } from 'zod';
import {
  FETCH_PARAMETERS,
  type FetchParameterOfKind,
  FetchOptionsV1,
  fetchOptionsV1,
  jsInstructionV1,
  RESPONSE_TYPE_TRAITS,
  ScreenshotOptionsV1,
} from '@trawl/contracts';
import { FetchParamsError } from './fetch-params.errors';

/** A query string as a web framework parses it: a repeated parameter becomes an array. */
export type QueryParameters = Record<string, string | string[] | undefined>;

// The parameters, their kinds, bounds and values are one list in @trawl/contracts (`FETCH_PARAMETERS`),
// which the OpenAPI document also describes them from: the reader below takes every bound from there.

/** Longest target URL accepted, in characters. */
const MAX_TARGET_URL_LENGTH = FETCH_PARAMETERS.url.maxLength;

/** Built once: a zod schema made per request cost the gateway ~1 % of its CPU (the fetch bench's profile). */
const JS_INSTRUCTIONS = z.array(jsInstructionV1);

/** A Fetch request's query, validated: what the worker is asked, plus what the gateway itself acts on. */
export interface FetchQuery {
  /** The target, as its WHATWG href. */
  url: string;
  /** The target's host name, lowercase, without brackets for IPv6. */
  hostname: string;
  options: FetchOptionsV1;
  /** `custom_headers=true`: the caller's headers go to the target. */
  customHeaders: boolean;
  /** `extract=auto` (or the deprecated `autoparse=true`). */
  extract: boolean;
}

/**
 * Parses and checks the Fetch endpoint's query. Order: unknown parameters, then each value, then
 * combinations; the first problem wins. `extract` is answered by the caller (REQS007) after the
 * domain checks, so this only reports it.
 *
 * @throws FetchParamsError `REQS004` (detail and `parameter` name the parameter), `RESP004` (css_extractor).
 */
export function parseFetchParams(query: QueryParameters | undefined): FetchQuery {
  const q = new QueryReader(query ?? {});
  q.assertKnown();
  const { url, hostname } = checkTargetUrl(q.string('url'));
  const extract = q.enumValue('extract') === 'auto' || q.boolean('autoparse', false);

  const jsRender = q.boolean('js_render', false);
  const premiumProxy = q.boolean('premium_proxy', false);
  const auto = q.enumValue('mode');
  const proxyCountry = q.string('proxy_country');
  if (proxyCountry !== undefined && !/^[a-z]{2}$/i.test(proxyCountry)) {
    throw invalid('proxy_country', '`proxy_country` must be a two-letter ISO 3166-1 country code, e.g. `us`.');
  }
  const sessionId = q.integer('session_id');
  const jsInstructions = q.json('js_instructions', JS_INSTRUCTIONS, 'a JSON array of one-key instruction objects, URL-encoded');
  const waitFor = q.string('wait_for');
  if (waitFor !== undefined && waitFor.trim() === '')
    throw invalid('wait_for', '`wait_for` must be a CSS selector or an XPath; it is empty.');
  const wait = q.integer('wait');
  const blockResources = q.list('block_resources');
  const jsonResponse = q.boolean('json_response', false);
  const cssExtractor = cssExtractorOf(q.string('css_extractor'));
  const responseType = q.enumValue('response_type');
  const outputs = q.list('outputs');
  const screenshot = screenshotOf(q);
  const device = q.enumValue('device');
  const windowWidth = q.integer('window_width');
  const windowHeight = q.integer('window_height');
  const originalStatus = q.boolean('original_status', false);
  const allowedStatusCodes = q.integerList('allowed_status_codes');
  const customHeaders = q.boolean('custom_headers', false);
  const maxAge = q.integer('max_age');
  const changeTracking = q.boolean('change_tracking', false);

  // Options that only a browser can honour (fetch-details: "Needs js_render"). `json_response` is
  // not one: without a browser it answers the HTML with an empty `xhr` list.
  if (!jsRender) {
    const browserOnly: [string, unknown][] = [
      ['js_instructions', jsInstructions],
      ['wait_for', waitFor],
      ['wait', wait],
      ['block_resources', blockResources],
      ['screenshot', screenshot.given],
      ['window_width', windowWidth],
      ['window_height', windowHeight],
      // A type Chromium prints (`pdf`) needs the browser; the others are made from the HTML.
      ['response_type', responseType !== undefined && RESPONSE_TYPE_TRAITS[responseType].printed ? responseType : undefined],
    ];
    const needing = browserOnly.find(([, value]) => value !== undefined);
    if (needing) {
      const [name] = needing;
      const what = name === 'response_type' ? `\`response_type=${String(responseType)}\`` : `\`${name}\``;
      throw invalid(name, `${what} needs js_render=true; add \`js_render=true\` or remove \`${name}\`.`);
    }
  }
  if (proxyCountry !== undefined && !premiumProxy && auto === undefined) {
    throw invalid('proxy_country', '`proxy_country` needs premium_proxy=true (or mode=auto).');
  }
  if (auto !== undefined && (jsRender || premiumProxy)) {
    const name = jsRender ? 'js_render' : 'premium_proxy';
    throw invalid('mode', `\`mode=auto\` chooses js_render and premium_proxy itself; remove \`${name}\` or \`mode\`.`);
  }
  // spec §4 rule 1: with extract, the other output formats are ignored rather than refused.
  if (!extract) assertOneAnswerShape({ cssExtractor, outputs, responseType, jsonResponse, screenshot: screenshot.given });

  // With extract the answer is always `{parsed, html}`: json_response and screenshot are output
  // formats too, ignored like the three the spec names (docs/decisions/extract.md).
  const options: FetchOptionsV1 = {
    js_render: jsRender,
    premium_proxy: premiumProxy,
    json_response: !extract && jsonResponse,
    original_status: originalStatus,
    ...(proxyCountry !== undefined && { proxy_country: proxyCountry.toLowerCase() }),
    ...(auto !== undefined && { mode: auto }),
    ...(sessionId !== undefined && { session_id: sessionId }),
    ...(jsInstructions !== undefined && { js_instructions: jsInstructions }),
    ...(waitFor !== undefined && { wait_for: waitFor }),
    ...(wait !== undefined && { wait }),
    ...(blockResources !== undefined && blockResources.length > 0 && { block_resources: blockResources }),
    ...(!extract && cssExtractor !== undefined && { css_extractor: cssExtractor }),
    ...(!extract && responseType !== undefined && { response_type: responseType }),
    ...(!extract && outputs !== undefined && { outputs }),
    ...(!extract && screenshot.given !== undefined && { screenshot: screenshot.given }),
    ...(device !== undefined && { device }),
    ...(windowWidth !== undefined && { window_width: windowWidth }),
    ...(windowHeight !== undefined && { window_height: windowHeight }),
    ...(allowedStatusCodes !== undefined && { allowed_status_codes: allowedStatusCodes }),
    ...(maxAge !== undefined && maxAge > 0 && { max_age: maxAge }),
    ...(changeTracking && { change_tracking: true }),
  };
  // The contract is the last word. What it refuses and the checks above let through is still the
  // caller's value: answered as REQS004 naming it, not as a server error.
  const checked = fetchOptionsV1.safeParse(options);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const parameter = String(issue?.path[0] ?? 'url');
    throw invalid(parameter, `\`${parameter}\` is not valid: ${issue?.message ?? 'refused'}.`);
  }
  return { url, hostname, options: checked.data, customHeaders, extract };
}

/** The body of the answer is one thing: the page (maybe transformed), JSON of one kind, or an image. */
function assertOneAnswerShape(shape: {
  cssExtractor: unknown;
  outputs: unknown;
  responseType: unknown;
  jsonResponse: boolean;
  screenshot: unknown;
}): void {
  if (shape.responseType !== undefined) {
    for (const [name, value] of [
      ['css_extractor', shape.cssExtractor],
      ['outputs', shape.outputs],
      ['screenshot', shape.screenshot],
      ['json_response', shape.jsonResponse || undefined],
    ] as const) {
      if (value !== undefined) throw invalid(name, `\`${name}\` cannot be combined with \`response_type\`; remove one of them.`);
    }
  }
  if (shape.cssExtractor !== undefined && shape.outputs !== undefined) {
    throw invalid('outputs', '`outputs` cannot be combined with `css_extractor`; remove one of them.');
  }
  if (shape.jsonResponse) {
    for (const [name, value] of [
      ['css_extractor', shape.cssExtractor],
      ['outputs', shape.outputs],
    ] as const) {
      if (value !== undefined) throw invalid(name, `\`${name}\` cannot be combined with \`json_response\`; remove one of them.`);
    }
  } else if (shape.screenshot !== undefined) {
    // Without json_response the body is the image itself: it cannot also be extracted JSON.
    for (const [name, value] of [
      ['css_extractor', shape.cssExtractor],
      ['outputs', shape.outputs],
    ] as const) {
      if (value !== undefined) {
        throw invalid(name, `\`${name}\` cannot be combined with \`screenshot\` (the answer is the image); remove one of them.`);
      }
    }
  }
}

/**
 * The `url` parameter checked as the Fetch API checks it (present, ≤ 8,192 characters, encoded,
 * absolute http/https with a host). @throws FetchParamsError `REQS004` naming `url`.
 */
export function checkTargetUrl(raw: string | undefined): { url: string; hostname: string } {
  if (raw === undefined || raw === '') throw invalid('url', '`url` is required: the URL-encoded address of the page to fetch.');
  if (raw.length > MAX_TARGET_URL_LENGTH) {
    throw invalid('url', `\`url\` must be at most ${MAX_TARGET_URL_LENGTH.toLocaleString('en')} characters.`);
  }
  // A decoded space or control character means the caller did not encode the URL (or encoded it twice).
  if (/[\s\u0000-\u001f\u007f]/.test(raw)) {
    throw invalid('url', '`url` is not properly encoded: URL-encode the whole target URL, once.');
  }
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw invalid('url', '`url` is not an absolute URL; send a URL-encoded http or https URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw invalid('url', '`url` must be an http or https URL.');
  }
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (hostname === '') throw invalid('url', '`url` has no host.');
  return { url: parsed.href, hostname };
}

function cssExtractorOf(raw: string | undefined): Record<string, string> | undefined {
  if (raw === undefined) return undefined;
  const refuse = (why: string) =>
    new FetchParamsError(
      'RESP004',
      `\`css_extractor\` ${why}; send a URL-encoded JSON object of names to CSS selectors, e.g. {"title":"h1","links":"a @href"}.`,
      { parameter: 'css_extractor' },
    );
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw refuse('is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw refuse('is not a JSON object');
  const entries = Object.entries(value);
  if (entries.length === 0) throw refuse('names no selector');
  for (const [name, selector] of entries) {
    if (typeof selector !== 'string' || selector.trim() === '' || /^\s*@/.test(selector)) {
      throw refuse(`has no usable selector for \`${name}\``);
    }
  }
  return value as Record<string, string>;
}

function screenshotOf(q: QueryReader): { given: ScreenshotOptionsV1 | undefined } {
  const viewport = q.boolean('screenshot', false);
  const fullpage = q.boolean('screenshot_fullpage', false);
  const selector = q.string('screenshot_selector');
  const format = q.enumValue('screenshot_format');
  const quality = q.integer('screenshot_quality');
  if (selector === '') throw invalid('screenshot_selector', '`screenshot_selector` must not be empty.');
  if (fullpage && selector !== undefined) {
    throw invalid('screenshot_selector', '`screenshot_selector` cannot be combined with `screenshot_fullpage`; remove one of them.');
  }
  const wanted = viewport || fullpage || selector !== undefined;
  if (!wanted) {
    if (format !== undefined) throw invalid('screenshot_format', '`screenshot_format` needs screenshot=true.');
    if (quality !== undefined) throw invalid('screenshot_quality', '`screenshot_quality` needs screenshot=true.');
    return { given: undefined };
  }
  if (quality !== undefined && format !== 'jpeg') {
    throw invalid('screenshot_quality', '`screenshot_quality` needs screenshot_format=jpeg.');
  }
  return {
    given: {
      fullpage,
      format: format ?? 'png',
      ...(selector !== undefined && { selector }),
      ...(quality !== undefined && { quality }),
    },
  };
}

function invalid(parameter: string, detail: string): FetchParamsError {
  return new FetchParamsError('REQS004', detail, { parameter });
}

/** The values an `enum` or `list` parameter takes (`'desktop' | 'mobile'` for `device`). */
type ValueOf<N extends FetchParameterOfKind<'enum' | 'list'>> = (typeof FETCH_PARAMETERS)[N]['values'][number];

/** Typed reads of single query values, bounds from `FETCH_PARAMETERS`; every failure is a `REQS004` naming the parameter. */
class QueryReader {
  constructor(private readonly query: QueryParameters) {}

  assertKnown(): void {
    for (const name of Object.keys(this.query)) {
      if (!Object.hasOwn(FETCH_PARAMETERS, name)) {
        throw invalid(
          name,
          `\`${name}\` is not a parameter of the Fetch endpoint; remove it (if it belongs to the target, URL-encode \`url\`).`,
        );
      }
    }
  }

  string(name: string): string | undefined {
    const value = this.query[name];
    if (Array.isArray(value)) throw invalid(name, `Give \`${name}\` at most once.`);
    return value;
  }

  boolean(name: string, fallback: boolean): boolean {
    const raw = this.string(name);
    if (raw === undefined) return fallback;
    if (raw === 'true') return true;
    if (raw === 'false') return false;
    throw invalid(name, `\`${name}\` must be \`true\` or \`false\`.`);
  }

  integer(name: FetchParameterOfKind<'integer'>): number | undefined {
    const { min, max } = FETCH_PARAMETERS[name];
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const value = /^-?\d{1,9}$/.test(raw) ? Number(raw) : NaN;
    if (!(value >= min && value <= max)) {
      throw invalid(name, `\`${name}\` must be an integer from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}.`);
    }
    return value;
  }

  enumValue<N extends FetchParameterOfKind<'enum'>>(name: N): ValueOf<N> | undefined {
    const values: readonly string[] = FETCH_PARAMETERS[name].values;
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    if (!(values as readonly string[]).includes(raw)) {
      throw invalid(name, `\`${name}\` must be one of ${values.map((v) => `\`${v}\``).join(', ')}.`);
    }
    return raw as ValueOf<N>;
  }

  /** A comma-separated list of known names; `*` (when `all`) means all, `none` (when `none`) means empty. */
  list<N extends FetchParameterOfKind<'list'>>(name: N): ValueOf<N>[] | undefined {
    const parameter: { values: readonly string[]; all?: boolean; none?: boolean } = FETCH_PARAMETERS[name];
    const { values } = parameter;
    const special = { all: parameter.all === true, none: parameter.none === true };
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const trimmed = raw.trim();
    if (special.all && trimmed === '*') return [...values] as ValueOf<N>[];
    if (special.none && trimmed === 'none') return [];
    const items = trimmed.split(',').map((item) => item.trim());
    for (const item of items) {
      if (!(values as readonly string[]).includes(item)) {
        const allowed = [...values, ...(special.all ? ['*'] : []), ...(special.none ? ['none'] : [])];
        throw invalid(name, `\`${name}\` holds \`${item}\`; use a comma-separated list of ${allowed.map((v) => `\`${v}\``).join(', ')}.`);
      }
    }
    return [...new Set(items)] as ValueOf<N>[];
  }

  integerList(name: FetchParameterOfKind<'integer_list'>): number[] | undefined {
    const { min, max } = FETCH_PARAMETERS[name];
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    const items = raw.split(',').map((item) => item.trim());
    const values = items.map((item) => (/^\d{1,3}$/.test(item) ? Number(item) : NaN));
    if (values.some((value) => !(value >= min && value <= max))) {
      throw invalid(name, `\`${name}\` must be a comma-separated list of HTTP status codes (${min}–${max}).`);
    }
    return [...new Set(values)];
  }

  json<S extends z.ZodType>(name: string, schema: S, shape: string): z.output<S> | undefined {
    const raw = this.string(name);
    if (raw === undefined) return undefined;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw invalid(name, `\`${name}\` is not valid JSON; send ${shape}.`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const at = parsed.error.issues[0]?.path.map(String).join('.') ?? '';
      throw invalid(name, `\`${name}\` is not valid${at ? ` at ${at}` : ''}; send ${shape}.`);
    }
    return parsed.data;
  }
}
