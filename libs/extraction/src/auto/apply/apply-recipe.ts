import { articleOf, genericRecord } from '../generic';
import type { ListField, PageType, Recipe, ValueField } from '../recipe';
import { meaningOf } from '../vocabulary';
import { HtmlPage, structureTokenIndex, type StructureTokenIndex } from './html-page';
import { descendants } from './page-text';
import { factsByTrust, runExtractor } from './run-extractor';
import { matchAll } from './selectors';
import { structureSimilarity } from './structure';
import { matchesUrlPattern } from './url-patterns';

/** Least structure share for a page whose URL matches a type's pattern: a redesign shows up here. */
const MIN_SIMILARITY_WITH_URL = 0.3;
/** Least structure share for a page whose URL matches no pattern of the type. */
const MIN_SIMILARITY_WITHOUT_URL = 0.6;

/**
 * Extracts a page's structured data with a domain's recipe: the page's type is found by URL
 * pattern, then structure; each active field's extractors run in order and the first valid
 * normalised value wins; lists answer arrays of records. Embedded data the recipe has no field for
 * is added under its vocabulary name. A page of no known type gets `genericRecord`.
 *
 * @param recipe the domain's recipe (validated, e.g. with `parseRecipe`)
 * @param page the page's HTML (decoded) and final URL (absolute)
 * @returns the fields found on the page, by name; `{}` when nothing is found
 */
export function applyRecipe(recipe: Recipe, page: { html: string; url: string }): Record<string, unknown> {
  const parsed = HtmlPage.parse(page.html, page.url);
  const pageType = matchPageType(recipe, parsed);
  if (pageType === undefined) return genericRecord({ html: page.html, url: parsed.url, document: parsed.document });
  const record = extractWithPageType(pageType, parsed);
  addEmbeddedFields(parsed, record);
  if (!learnsBody(pageType) && isArticleRecord(pageType, record)) addArticleFields(parsed, record);
  return record;
}

/**
 * Whether a page of a known type may be an article whose text the recipe has no selector for: a
 * type learned from one or two pages keeps only anchored fields (a headline from markup, say),
 * never the body's position, so its article comes from Readability as on a page of no known type
 * (which answers nothing for a page that is not one). A product (a price) or a listing (a list)
 * is not asked: Readability costs tens of milliseconds.
 */
function isArticleRecord(pageType: PageType, record: Record<string, unknown>): boolean {
  if (pageType.name === 'article') return true;
  // A type with a price of its own is a product's, whatever its price is named (`原價`, `brez_ddv`):
  // Readability would cost tens of milliseconds there for a body nobody asked of a product.
  if (pageType.fields.some((field) => field.type === 'value' && field.kind === 'price' && field.status === 'active')) return false;
  return record.price === undefined && !Object.values(record).some((value) => Array.isArray(value));
}

/** Whether the page type has a learned selector for the article's body (not embedded data). */
function learnsBody(pageType: PageType): boolean {
  return pageType.fields.some(
    (field) =>
      field.status === 'active' && field.name === 'body' && field.type === 'value' && field.extractors.some((e) => e.type === 'css'),
  );
}

/**
 * The article's headline, author and date where the record has none of its own, and its body:
 * Readability's text over embedded `articleBody`, which sites often cut to a teaser.
 */
function addArticleFields(page: HtmlPage, record: Record<string, unknown>): void {
  const article = articleOf(page.document, page.url);
  if (!article) return;
  for (const [name, value] of Object.entries(article)) {
    if (value === undefined || value === '') continue;
    if (name === 'body' || record[name] === undefined) record[name] = value;
  }
}

/**
 * The page type of `recipe` the page belongs to, or undefined: among types whose URL pattern
 * matches, the one whose structure fits best (if it fits at all); else the type whose structure
 * fits best, if it fits well.
 */
export function matchPageType(recipe: Recipe, page: HtmlPage): PageType | undefined {
  const path = page.url.pathname;
  const held = page.heldStructureTokens(signatureIndexOf(recipe));
  let best: PageType | undefined;
  let bestScore = -1;
  for (const pageType of recipe.page_types) {
    if (!pageType.fields.some((field) => field.status === 'active')) continue;
    const urlMatches = pageType.url_patterns.some((pattern) => matchesUrlPattern(pattern, path));
    const similarity = structureSimilarity(pageType.signature, held);
    const fits = urlMatches
      ? similarity >= MIN_SIMILARITY_WITH_URL || pageType.signature.length === 0
      : similarity >= MIN_SIMILARITY_WITHOUT_URL;
    if (!fits) continue;
    // A URL match outranks any structure-only fit.
    const score = (urlMatches ? 1 : 0) + similarity;
    if (score > bestScore) {
      best = pageType;
      bestScore = score;
    }
  }
  return best;
}

const signatureIndexes = new WeakMap<Recipe, StructureTokenIndex>();

/** Every signature token of the recipe's page types, indexed once per recipe object. */
function signatureIndexOf(recipe: Recipe): StructureTokenIndex {
  let index = signatureIndexes.get(recipe);
  if (index === undefined) {
    index = structureTokenIndex(recipe.page_types.flatMap((pageType) => pageType.signature));
    signatureIndexes.set(recipe, index);
  }
  return index;
}

/** Runs the active fields of `pageType` on the page. */
export function extractWithPageType(pageType: PageType, page: HtmlPage): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const field of pageType.fields) {
    if (field.status !== 'active') continue;
    if (field.type === 'value') addValueField(page, field, record);
    else addListField(page, field, record);
  }
  dropRepeatedCurrencies(pageType, record);
  return record;
}

/**
 * A second price's currency said once more (`regular_price_currency` = `currency`) adds nothing:
 * only a currency that differs from the first price's is kept.
 */
function dropRepeatedCurrencies(pageType: PageType, record: Record<string, unknown>): void {
  let first: unknown;
  for (const field of pageType.fields) {
    const name = field.type === 'value' ? field.extra_names?.currency : undefined;
    if (name === undefined || record[name] === undefined) continue;
    if (first === undefined) first = record[name];
    else if (record[name] === first) delete record[name];
  }
}

function addValueField(page: HtmlPage, field: ValueField, record: Record<string, unknown>): void {
  if (record[field.name] !== undefined) return;
  for (const extractor of field.extractors) {
    const found = runExtractor(page, extractor, field.kind);
    if (found === undefined) continue;
    record[field.name] = found.value;
    for (const [part, value] of Object.entries(found.extra ?? {})) {
      const name = field.extra_names?.[part];
      if (name !== undefined && record[name] === undefined) record[name] = value;
    }
    return;
  }
}

function addListField(page: HtmlPage, field: ListField, record: Record<string, unknown>): void {
  for (const items of field.items) {
    const records: Array<Record<string, string>> = [];
    for (const item of matchAll(items.selector, page.elements)) {
      const scope = descendants(item);
      const entry: Record<string, string> = {};
      for (const itemField of field.fields) {
        for (const extractor of itemField.extractors) {
          const found = runExtractor(page, extractor, itemField.kind, scope);
          if (found !== undefined) {
            entry[itemField.name] = found.value;
            break;
          }
        }
      }
      if (Object.keys(entry).length > 0) records.push(entry);
    }
    if (records.length > 0) {
      record[field.name] = records;
      return;
    }
  }
}

/** Embedded values the page has and the recipe did not name, under their vocabulary names. */
function addEmbeddedFields(page: HtmlPage, record: Record<string, unknown>): void {
  for (const fact of factsByTrust(page.embedded)) {
    const meaning = meaningOf(fact.rootType, fact.path);
    if (meaning === undefined || record[meaning.name] !== undefined) continue;
    const found = runExtractor(page, { type: 'embedded', root_type: fact.rootType, path: fact.path }, meaning.kind);
    if (found === undefined) continue;
    record[meaning.name] = found.value;
    if (found.extra?.currency !== undefined && record.currency === undefined) record.currency = found.extra.currency;
  }
}
