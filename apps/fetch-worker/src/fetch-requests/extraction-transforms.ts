import { FetchRequestError } from './fetch-request.errors';
import type { PageTransforms } from './page-transforms';

function unavailable(): never {
  throw new FetchRequestError('ERR0001', 'Output transforms are not available on this worker yet.');
}

/** The output transforms of `@trawl/extraction` (wired when the library lands). */
export const extractionTransforms: PageTransforms = {
  toMarkdown: unavailable,
  toPlainText: unavailable,
  applyCssExtractor: unavailable,
  extractOutputs: unavailable,
};
