import type { FetchOptionsV1, OutputFormat } from '@trawl/contracts';

/**
 * The format the options give an answer, in the worker's precedence (docs/decisions/fetch-worker.md, "Output precedence"):
 * `extract` (`{parsed, html}`), then `json_response`, then screenshot, then `response_type`, then `css_extractor`, then `outputs`.
 * Non-HTML targets (an image, a PDF file) still say `html` here: the result's `content_type` tells.
 */
export function outputFormatOf(options: FetchOptionsV1): OutputFormat {
  if (options.extract || options.json_response) return 'json';
  if (options.screenshot) return options.screenshot.format;
  if (options.response_type) return options.response_type;
  if (options.css_extractor || options.outputs) return 'json';
  return 'html';
}
