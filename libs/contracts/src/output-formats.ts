/**
 * What an answer can be: the one list of each response format and output name. Every place that
 * depends on one of them is a `Record` over its union, a `switch` without `default`, or derived from
 * one, so a new value does not compile until each place handles it. A new `response_type` (checked
 * by adding one and running `tsc`) fails in:
 * - this file: `RESPONSE_TYPE_TRAITS` (its name in the API's descriptions; whether Chromium prints
 *   it, which makes the Fetch API ask for `js_render` and the browser print the page) and
 *   `OUTPUT_FORMAT_MEDIA` (its content type, export extension and whether it is text);
 * - `apps/fetch-worker/src/fetch-requests/answer-body.ts`: `responseTypeBody` (how the worker makes it);
 * - `apps/cli/src/commands/scrape-options.ts`: `RESPONSE_TYPE_FLAGS` (its flag), once `npm run
 *   sdk:types` has regenerated the SDK's types. The CLI uses nothing of the server, so it is typed
 *   by the SDK, whose types are generated from the OpenAPI document, not compiled from here; until
 *   they are regenerated `test/sdk/sdk-types.spec.ts` fails.
 * The rest follows from these: the query parameter and its description (`fetch-parameters.ts`), the
 * `js_render` check (`@trawl/fetch-params`), the worker message (`fetchOptionsV1`), the browser's
 * print (`render-page.ts`), the batch result's `output_format` (`outputFormatOf`) and its media type
 * in results and export archives, the Fetch answer's media types in the OpenAPI document
 * (`http/fetch.ts`). No compiler asks for a new type's tests (`answer-body.spec.ts` and the worker's
 * `fetch-request` and `fetch-browser` integration specs show each type's answer by example) or for
 * the prose of `docs/cli.md` and `docs/architecture.md`.
 */

/** `response_type` (fetch-details): the page turned into another format. */
export const RESPONSE_TYPES = ['markdown', 'plaintext', 'pdf'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

/** What sets one response type apart, so that no place tests a type by its name. */
export interface ResponseTypeTraits {
  /** Its name in the API's descriptions ("plain text"). */
  title: string;
  /**
   * Chromium prints it from the rendered page (`page.pdf`), so the Fetch API asks for `js_render`.
   * Otherwise the worker makes it from the page's HTML, with or without a browser.
   */
  printed: boolean;
}

/** Each response type's traits; a new type does not compile until it has them. */
export const RESPONSE_TYPE_TRAITS: Readonly<Record<ResponseType, ResponseTypeTraits>> = {
  markdown: { title: 'Markdown', printed: false },
  plaintext: { title: 'plain text', printed: false },
  pdf: { title: 'PDF', printed: true },
};

/**
 * The response types as the API's descriptions name them: "Markdown, plain text or PDF" (British
 * English puts no comma before "or", as the rest of the document writes its lists).
 */
export const RESPONSE_TYPE_TITLES = new Intl.ListFormat('en-GB', { type: 'disjunction' }).format(
  RESPONSE_TYPES.map((type) => RESPONSE_TYPE_TRAITS[type].title),
);

/** `screenshot_format` (fetch-details "screenshot"). */
export const SCREENSHOT_FORMATS = ['png', 'jpeg'] as const;
export type ScreenshotFormat = (typeof SCREENSHOT_FORMATS)[number];

/**
 * The format of a successful answer's body, recorded on each batch result (spec-batch-api §2
 * `output_format`), as `outputFormatOf` (@trawl/fetch-params) picks it. A non-HTML target (an image,
 * a PDF file) fetched as is still says `html`: the result's `content_type` tells.
 */
export const OUTPUT_FORMATS = ['html', 'json', ...RESPONSE_TYPES, ...SCREENSHOT_FORMATS] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** How a body of one output format is served and stored. */
export interface OutputFormatMedia {
  /** `Content-Type` of the answer the worker makes in this format. */
  contentType: string;
  /** File extension of the body in an export archive (`bodies/<seq>.<extension>`). */
  extension: string;
  /** Whether the body is text (a results page answers it as a string, not base64). */
  text: boolean;
}

/** Each output format's media; a new format does not compile until it has one. */
export const OUTPUT_FORMAT_MEDIA: Readonly<Record<OutputFormat, OutputFormatMedia>> = {
  html: { contentType: 'text/html; charset=utf-8', extension: 'html', text: true },
  json: { contentType: 'application/json; charset=utf-8', extension: 'json', text: true },
  markdown: { contentType: 'text/markdown; charset=utf-8', extension: 'md', text: true },
  plaintext: { contentType: 'text/plain; charset=utf-8', extension: 'txt', text: true },
  pdf: { contentType: 'application/pdf', extension: 'pdf', text: false },
  png: { contentType: 'image/png', extension: 'png', text: false },
  jpeg: { contentType: 'image/jpeg', extension: 'jpg', text: false },
};

/** Whether a stored `output_format` (a text column without a CHECK) is one of `OUTPUT_FORMATS`. */
export function isOutputFormat(value: string | null | undefined): value is OutputFormat {
  return value !== null && value !== undefined && (OUTPUT_FORMATS as readonly string[]).includes(value);
}

/** A crawl's `output_format` (spec-crawl-api §4): `html` keeps each result's HTML. */
export const CRAWL_OUTPUT_FORMATS = ['html'] as const satisfies readonly OutputFormat[];
export type CrawlOutputFormat = (typeof CRAWL_OUTPUT_FORMATS)[number];

/**
 * Named outputs (fetch-details "outputs"); `*` in the query means all of them. A new name does not
 * compile until `OutputShapes` and `extractOutput` in `libs/extraction/src/extract-outputs.ts` have it.
 */
export const OUTPUT_NAMES = [
  'emails',
  'phone_numbers',
  'headings',
  'images',
  'audios',
  'videos',
  'links',
  'tables',
  'menus',
  'hashtags',
  'metadata',
  'favicon',
] as const;
export type OutputName = (typeof OUTPUT_NAMES)[number];
