import type { Element } from 'domhandler';
import { normaliseValue, type ValueKind } from '../values';
import type { EmbeddedFact } from '../embedded';
import type { CssExtractorStep, Extractor } from '../recipe';
import { familyOf } from '../vocabulary';
import type { HtmlPage } from './html-page';
import { lazyMatches } from './selectors';

/** A normalised value and where it came from. */
export interface ExtractedValue {
  readonly value: string;
  readonly extra?: Record<string, string>;
  /** The element the value was read from, when it was read from the DOM. */
  readonly element?: Element;
}

/**
 * Embedded facts in the order they are trusted: the page's own item (a product, an article, a
 * recipe…) before OpenGraph and meta tags, before other items (the shop's `Organization`, whose
 * `name` is not the product's); within a rank, shallower paths first (a product's `sku` before its
 * variants' `offers.sku`), then document order.
 */
export function factsByTrust(facts: readonly EmbeddedFact[]): EmbeddedFact[] {
  const rank = (fact: EmbeddedFact): number => {
    const family = familyOf(fact.rootType);
    if (family === undefined) return fact.source === 'opengraph' || fact.source === 'meta' ? 1 : 3;
    return family === 'other' || family === 'person' ? 2 : 0;
  };
  return facts
    .map((fact, index) => ({ fact, index, rank: rank(fact), depth: fact.path.split('.').length }))
    .sort((a, b) => a.rank - b.rank || a.depth - b.depth || a.index - b.index)
    .map(({ fact }) => fact);
}

/** Attributes whose value is a URL, answered absolute. */
const URL_ATTRIBUTES: ReadonlySet<string> = new Set(['href', 'src', 'data-src', 'content', 'srcset', 'poster']);

/**
 * Runs one extractor on a page and normalises what it finds as `kind`.
 *
 * @param scope the elements to search for CSS extractors (a list item's), default the whole page
 * @returns the first value the extractor finds that normalises, or undefined
 */
export function runExtractor(
  page: HtmlPage,
  extractor: Extractor,
  kind: ValueKind,
  scope: readonly Element[] = page.elements,
): ExtractedValue | undefined {
  const context = page.valueContext;
  switch (extractor.type) {
    case 'embedded': {
      for (const fact of page.embedded) {
        if (fact.rootType !== extractor.root_type || fact.path !== extractor.path) continue;
        const normalised = normaliseValue(kind, fact.value, context);
        if (normalised !== undefined) return { ...normalised, element: fact.element };
      }
      return undefined;
    }
    case 'label': {
      const pair = page.labelPair(extractor.label);
      if (pair === undefined) return undefined;
      const normalised = normaliseValue(kind, pair.value, context);
      return normalised === undefined ? undefined : { ...normalised, element: pair.valueElement };
    }
    case 'css':
      return runCss(page, extractor, kind, scope);
    case 'url': {
      let pattern: RegExp;
      try {
        pattern = new RegExp(extractor.pattern);
      } catch {
        return undefined;
      }
      const match = pattern.exec(page.url.pathname + page.url.search);
      const raw = match?.[1];
      if (raw === undefined) return undefined;
      const normalised = normaliseValue(kind, safeDecode(raw), context);
      return normalised === undefined ? undefined : { ...normalised };
    }
  }
}

/** The raw string a CSS extractor reads from `element` (text, or an attribute resolved when a URL). */
export function readElement(page: HtmlPage, element: Element, attribute: string | undefined): string | undefined {
  if (attribute === undefined) return page.text(element);
  const raw = element.attribs[attribute];
  if (raw === undefined) return undefined;
  if (!URL_ATTRIBUTES.has(attribute) || attribute === 'content') return raw.trim();
  const first = attribute === 'srcset' ? raw.trim().split(/\s+/)[0] : raw;
  return page.resolve(first);
}

function runCss(page: HtmlPage, extractor: CssExtractorStep, kind: ValueKind, scope: readonly Element[]): ExtractedValue | undefined {
  const context = page.valueContext;
  // The first match with a value: an empty placeholder before the real element must not hide it.
  // Matched lazily: most fields are found near the top and the rest of the page is never tested.
  for (const element of lazyMatches(extractor.selector, scope)) {
    const read = readElement(page, element, extractor.attribute);
    if (read === undefined || read === '') continue;
    const raw = withoutAffixes(read, extractor.prefix, extractor.suffix);
    const normalised = normaliseValue(kind, raw, context);
    return normalised === undefined ? undefined : { ...normalised, element };
  }
  return undefined;
}

/** `text` without the template's `prefix` and `suffix` around the value, where it has them. */
export function withoutAffixes(text: string, prefix: string | undefined, suffix: string | undefined): string {
  let value = text;
  if (prefix !== undefined && value.startsWith(prefix) && value.length > prefix.length) value = value.slice(prefix.length);
  if (suffix !== undefined && value.endsWith(suffix) && value.length > suffix.length) value = value.slice(0, -suffix.length);
  return value.trim();
}

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
