import type { OutputName } from '@trawl/contracts';
import type { Recipe } from '@trawl/extraction';

/**
 * The output transforms the answer needs (`@trawl/extraction`), behind an interface so the answer
 * logic is tested without them. Every method takes the page URL to resolve relative links.
 */
export interface PageTransforms {
  toMarkdown(html: string, pageUrl: string): string;
  toPlainText(html: string, pageUrl: string): string;
  /**
   * `css_extractor`: name → value(s).
   *
   * @throws FetchRequestError `RESP004` when a selector cannot be applied.
   */
  applyCssExtractor(html: string, extractor: Record<string, string>, pageUrl: string): Record<string, unknown>;
  /** `outputs`: output name → what the page holds of it. */
  extractOutputs(html: string, names: readonly OutputName[], pageUrl: string): Record<string, unknown>;
  /** `extract=auto`: the fields the domain's recipe finds on the page (only those present; `{}` for none). */
  applyRecipe(recipe: Recipe, html: string, pageUrl: string): Record<string, unknown>;
}
