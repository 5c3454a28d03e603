import { type FetchOptionsV1, OUTPUT_FORMAT_MEDIA, type ResponseType } from '@trawl/contracts';
import type { Recipe } from '@trawl/extraction';
import { isHtmlPage, pageText } from '../page-fetch/page-text';
import type { TargetPage } from '../target-fetch/fetch-engine';
import { FetchRequestError } from './fetch-request.errors';
import type { PageTransforms } from './page-transforms';

/** The body of a successful answer and its content type. */
export interface AnswerBody {
  contentType: string;
  body: Buffer;
}

const HTML = OUTPUT_FORMAT_MEDIA.html.contentType;
const JSON_TYPE = OUTPUT_FORMAT_MEDIA.json.contentType;

/**
 * Shapes the page into what the tenant asked for (fetch-details), first match wins:
 * `json_response` → `{html, xhr, js_instructions_report?, screenshot?}`; a screenshot → the image;
 * `response_type` `pdf` / `markdown` / `plaintext`; `css_extractor` → JSON (it wins over `outputs`
 * when both are given); `outputs` → JSON keyed by output name; otherwise the page itself: HTML
 * decoded from its charset and served as UTF-8, any other content as the target sent it.
 *
 * @throws FetchRequestError `RESP004` from a css_extractor that cannot be applied; `ERR0001` when
 *   the engine did not produce what the options need (a screenshot or PDF without a browser).
 */
export function answerBody(page: TargetPage, options: FetchOptionsV1, transforms: PageTransforms): AnswerBody {
  if (options.json_response) return json(jsonResponse(page, options));
  if (options.screenshot) {
    const shot = required(page.screenshot, 'screenshot');
    return { contentType: OUTPUT_FORMAT_MEDIA[shot.type].contentType, body: shot.data };
  }
  if (options.response_type) return responseTypeBody(page, options.response_type, transforms);
  if (options.css_extractor) return json(transforms.applyCssExtractor(pageText(page), options.css_extractor, page.finalUrl));
  if (options.outputs) return json(transforms.extractOutputs(pageText(page), options.outputs, page.finalUrl));
  if (isHtmlPage(page)) return text(HTML, pageText(page));
  return { contentType: page.contentType ?? 'application/octet-stream', body: page.body };
}

/**
 * `extract=auto` (spec §2 "Extract response"): `{parsed, html}`, the recipe applied to the final
 * HTML. @throws FetchRequestError `RESP003` when the page is not HTML or the recipe finds nothing.
 */
export function extractAnswer(page: TargetPage, recipe: Recipe, transforms: PageTransforms): AnswerBody {
  if (!isHtmlPage(page)) throw new FetchRequestError('RESP003', 'The page is not HTML, so nothing could be extracted from it.');
  const html = pageText(page);
  const parsed = transforms.applyRecipe(recipe, html, page.finalUrl);
  if (Object.keys(parsed).length === 0) {
    throw new FetchRequestError('RESP003', 'Nothing could be extracted from this page; css_extractor can take what you need meanwhile.');
  }
  return json({ parsed, html });
}

/** The page as `response_type` asks; a new response type does not compile until it has a case. */
function responseTypeBody(page: TargetPage, responseType: ResponseType, transforms: PageTransforms): AnswerBody {
  const contentType = OUTPUT_FORMAT_MEDIA[responseType].contentType;
  switch (responseType) {
    case 'pdf':
      return { contentType, body: required(page.pdf, 'PDF') };
    case 'markdown':
      return text(contentType, transforms.toMarkdown(pageText(page), page.finalUrl));
    case 'plaintext':
      return text(contentType, transforms.toPlainText(pageText(page), page.finalUrl));
  }
}

function jsonResponse(page: TargetPage, options: FetchOptionsV1): Record<string, unknown> {
  const answer: Record<string, unknown> = { html: pageText(page), xhr: page.xhr ?? [] };
  if (page.jsInstructionsReport) answer.js_instructions_report = page.jsInstructionsReport;
  if (options.screenshot) {
    const shot = required(page.screenshot, 'screenshot');
    answer.screenshot = {
      data: shot.data.toString('base64'),
      type: OUTPUT_FORMAT_MEDIA[shot.type].contentType,
      width: shot.width,
      height: shot.height,
    };
  }
  return answer;
}

function json(value: unknown): AnswerBody {
  return { contentType: JSON_TYPE, body: Buffer.from(JSON.stringify(value), 'utf8') };
}

function text(contentType: string, value: string): AnswerBody {
  return { contentType, body: Buffer.from(value, 'utf8') };
}

function required<T>(value: T | undefined, what: string): T {
  // The gateway sends screenshot/pdf only with js_render, so a missing one is the engine's bug.
  if (value === undefined) throw new FetchRequestError('ERR0001', `The page engine produced no ${what}.`);
  return value;
}
