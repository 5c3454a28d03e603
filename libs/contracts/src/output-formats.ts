/**
 * What an answer can be: the one list of each response format and output name. Every place that
 * depends on one of them is a `Record` over its union or a `switch` without `default`, so a new value
 * does not compile until each place handles it. A new `response_type` (checked by adding one and
 * running `tsc`) fails in:
 * - this file: `OUTPUT_FORMAT_MEDIA` (its content type, extension and whether it is text);
 * - `libs/fetch-params/src/fetch-params.ts`: `RESPONSE_TYPE_NEEDS_BROWSER` (whether it needs `js_render`);
 * - `apps/fetch-worker/src/fetch-requests/answer-body.ts`: `responseTypeBody` (how the worker makes it).
 * The query parameter (`fetch-params`), the worker message (`fetchOptionsV1`), the batch result's
 * `output_format` (`outputFormatOf`), its media type in results and export archives follow from here.
 */

/** `response_type` (fetch-details): the page turned into another format. */
export const RESPONSE_TYPES = ['markdown', 'plaintext', 'pdf'] as const;
export type ResponseType = (typeof RESPONSE_TYPES)[number];

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
