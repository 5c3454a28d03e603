import {
  applyCssExtractor,
  applyRecipe,
  ExtractionError,
  ExtractionErrorCode,
  extractOutputs,
  toMarkdown,
  toPlainText,
} from '@trawl/extraction';
import { FetchRequestError } from './fetch-request.errors';
import type { PageTransforms } from './page-transforms';

/** The output transforms of `@trawl/extraction`; a selector that does not compile is `RESP004`. */
export const extractionTransforms: PageTransforms = {
  toMarkdown: (html, pageUrl) => toMarkdown(html, pageUrl),
  toPlainText: (html) => toPlainText(html),
  applyCssExtractor(html, extractor, pageUrl) {
    try {
      return applyCssExtractor(html, extractor, pageUrl);
    } catch (error) {
      if (error instanceof ExtractionError && error.code === ExtractionErrorCode.InvalidCssExtractor) {
        throw new FetchRequestError('RESP004', error.message, { cause: error });
      }
      throw error;
    }
  },
  extractOutputs: (html, names, pageUrl) => extractOutputs(html, pageUrl, names),
  applyRecipe: (recipe, html, pageUrl) => applyRecipe(recipe, { html, url: pageUrl }),
};
