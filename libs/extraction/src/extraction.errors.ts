import { CodedError } from '@trawl/errors';

/** Why an output transform refused its input. The fetch worker maps each code to a Fetch error code. */
export enum ExtractionErrorCode {
  /**
   * `css_extractor` is not a JSON object of non-empty selector strings, or a selector does not
   * compile (answered as `RESP004`).
   */
  InvalidCssExtractor = 'invalid_css_extractor',
  /** The page URL given to resolve relative links is not an absolute http(s) URL (a caller bug). */
  InvalidPageUrl = 'invalid_page_url',
}

/** A transform refused its input; the message is safe to show the tenant who sent it. */
export class ExtractionError extends CodedError<ExtractionErrorCode> {}
