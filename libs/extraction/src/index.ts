export { ExtractionError, ExtractionErrorCode } from './extraction.errors';
export { parsePage, ParsedPage } from './parsed-page';
export { toMarkdown } from './markdown';
export { toPlainText } from './plain-text';
export { boundNesting, MAX_ELEMENT_DEPTH } from './bounded-nesting';
export {
  applyCssExtractor,
  parseCssExtractor,
  MAX_CSS_EXTRACTOR_FIELDS,
  MAX_CSS_SELECTOR_LENGTH,
  type CssExtraction,
  type CssExtractor,
} from './css-extractor';
export { extractOutputs, type ExtractedOutputs, type OutputShapes } from './extract-outputs';
export type { HeadingsOutput } from './outputs/headings';
export type { AudioOutput, ImageOutput, VideoOutput } from './outputs/media';
export type { LinkOutput } from './outputs/links';
export type { MenuItemOutput, MenuOutput } from './outputs/menus';
export type { MetadataOutput } from './outputs/metadata';
export type { TableOutput } from './outputs/tables';
export * from './auto';
