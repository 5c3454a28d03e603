import { isProbablyReaderable } from '@mozilla/readability';
import type { Element } from 'domhandler';
import type { HtmlPage } from '../apply/html-page';
import { NON_VALUE_ELEMENTS } from '@trawl/extraction/dom';
import { readArticle } from '../generic/article';
import type { ValueField } from '../recipe';
import { normaliseValue, type ValueKind } from '../values';
import { cssMeanings, learnSelectors, toCssExtractor, type SlotObservation } from './learn-selectors';
import { regionsOf } from './page-regions';

/**
 * Article pages without embedded data: what a reader takes for the article (Mozilla's Readability,
 * as `genericRecord` reads pages of no type) is found once per training page, located in the DOM,
 * and learned as CSS selectors, so that applying the recipe stays a few selector lookups.
 */

/** One article field located on one page: its value and the element showing it. */
interface Located {
  readonly value: string;
  readonly element: Element;
}

/** The article's parts located on one page. */
type LocatedArticle = Partial<Record<ArticlePart, Located>>;

type ArticlePart = 'headline' | 'author' | 'date_published' | 'body';

const PARTS: ReadonlyArray<{ part: ArticlePart; kind: ValueKind }> = [
  { part: 'headline', kind: 'text' },
  { part: 'author', kind: 'text' },
  { part: 'date_published', kind: 'date' },
  { part: 'body', kind: 'text' },
];

/** Shortest body, in characters, that makes a page an article rather than a page with a blurb. */
const MIN_ARTICLE_BODY = 500;
/** Share of a page type's pages that must read as articles. */
const MIN_ARTICLE_SHARE = 2 / 3;
/** Fewest pages an article field's selector must be right on. */
const MIN_SUPPORT = 2;

const located = new WeakMap<HtmlPage, LocatedArticle | null>();

/** A learned article field, and how to read it on a held-out page another way. */
export interface ArticleDraft {
  readonly field: ValueField;
  reference(page: HtmlPage): string | undefined;
}

/**
 * The fields of an article page type (headline, author, date_published, body), or undefined when
 * its pages are not articles: a product's embedded data says otherwise, or too few pages have a
 * body Readability finds.
 */
export function articleDrafts(pages: readonly HtmlPage[]): ArticleDraft[] | undefined {
  if (pages.length < MIN_SUPPORT) return undefined;
  if (pages.some((page) => page.embedded.some((fact) => fact.rootType === 'Product' || fact.rootType === 'ProductGroup'))) return undefined;
  const articles = pages.map(locateArticle);
  if (articles.filter((article) => article?.body !== undefined).length < pages.length * MIN_ARTICLE_SHARE) return undefined;
  const drafts: ArticleDraft[] = [];
  for (const { part, kind } of PARTS) {
    const observations: SlotObservation[] = pages.map((page, index) => {
      const found = articles[index]?.[part];
      return { page, value: found?.value, elements: found === undefined ? [] : [found.element] };
    });
    const css = learnSelectors(observations, kind, undefined, MIN_SUPPORT);
    if (css.length === 0) continue;
    drafts.push({
      field: {
        type: 'value',
        name: part,
        kind,
        status: 'active',
        meaning: [`article:${part}`, ...cssMeanings(css)],
        extractors: css.map(toCssExtractor),
      },
      reference: (page) => locateArticle(page)?.[part]?.value,
    });
  }
  return drafts.some((draft) => draft.field.name === 'body') ? drafts : undefined;
}

/** The page's article parts, located in its DOM (cached per page); null when it is no article. */
function locateArticle(page: HtmlPage): LocatedArticle | null {
  const cached = located.get(page);
  if (cached !== undefined) return cached;
  const article = readArticle(page.document, page.url, (document, signals) => signals.declared || isProbablyReaderable(document));
  let result: LocatedArticle | null = null;
  if (article !== undefined && article.body.length >= MIN_ARTICLE_BODY) {
    const body = bodyElement(page, article.body);
    if (body !== undefined) {
      result = { body: { value: page.text(body), element: body } };
      const order = new Map(page.elements.map((element, index) => [element, index]));
      const bodyAt = order.get(body) ?? 0;
      const before = (element: Element): boolean => (order.get(element) ?? Infinity) < bodyAt;
      const headline = showing(page, 'text', article.headline).find(before) ?? firstHeading(page, before);
      if (headline !== undefined) result.headline = { value: page.text(headline), element: headline };
      const author = article.author === undefined ? undefined : showing(page, 'text', article.author)[0];
      if (author !== undefined && article.author !== undefined) result.author = { value: article.author, element: author };
      else {
        const byline = bylineBefore(page, before);
        if (byline !== undefined) result.author = byline;
      }
      const date = article.date_published === undefined ? undefined : showing(page, 'date', article.date_published)[0];
      result.date_published =
        date !== undefined && article.date_published !== undefined
          ? { value: article.date_published, element: date }
          : datelineBefore(page, before);
    }
  }
  located.set(page, result);
  return result;
}

/** The element whose text is the body Readability read: the smallest one holding its start and end. */
function bodyElement(page: HtmlPage, body: string): Element | undefined {
  const squeeze = (text: string): string => text.replace(/\s+/g, '');
  const text = squeeze(body);
  const head = text.slice(0, 80);
  const tail = text.slice(-80);
  let best: Element | undefined;
  let bestLength = Infinity;
  for (const element of page.elements) {
    if (NON_VALUE_ELEMENTS.has(element.name)) continue;
    const own = page.text(element);
    if (own.length < body.length * 0.8 || own.length >= bestLength) continue;
    const squeezed = squeeze(own);
    if (squeezed.includes(head) && squeezed.includes(tail) && squeezed.length <= text.length * 1.2) {
      best = element;
      bestLength = own.length;
    }
  }
  return best;
}

/** Elements of the page's body whose text normalises to `value` as `kind`, innermost first. */
function showing(page: HtmlPage, kind: ValueKind, value: string): Element[] {
  const found: Element[] = [];
  for (const element of page.visibleElements) {
    if (NON_VALUE_ELEMENTS.has(element.name) || element.name === 'body' || element.name === 'html') continue;
    const text = page.text(element);
    if (text === '' || text.length > value.length * 2 + 40) continue;
    if (normaliseValue(kind, text, page.valueContext)?.value !== value) continue;
    const at = found.findIndex((other) => element.parent === other);
    if (at >= 0) found.splice(at, 1);
    found.push(element);
  }
  return found;
}

/** Markup that names an author: microformats, `rel`/`itemprop`, WordPress's byline. */
const AUTHOR_MARK = /(?:^|[\s_-])(?:author|byline|writer|fn|p-author|vcard)(?:$|[\s_-])/i;
/** Longest text an author's name is, in characters. */
const MAX_AUTHOR_LENGTH = 80;

/**
 * The author's name where Readability found no byline: the innermost element before the body that
 * its markup calls an author and whose text is only the name ("by Maya" → the element holding "Maya").
 */
function bylineBefore(page: HtmlPage, before: (element: Element) => boolean): Located | undefined {
  let chosen: Element | undefined;
  for (const element of page.visibleElements) {
    if (!before(element)) break;
    const marks = `${element.attribs.class ?? ''} ${element.attribs.id ?? ''} ${element.attribs.rel ?? ''} ${element.attribs.itemprop ?? ''}`;
    if (!AUTHOR_MARK.test(marks)) continue;
    if (chosen !== undefined && !isInside(element, chosen)) break;
    chosen = element;
  }
  if (chosen === undefined) return undefined;
  const text = page.text(chosen);
  if (text === '' || text.length > MAX_AUTHOR_LENGTH || /^(?:by|von|par|por|door|di|av)\s/i.test(text)) return undefined;
  return { value: text, element: chosen };
}

function isInside(element: Element, ancestor: Element): boolean {
  for (let node = element.parent; node !== null; node = node.parent) if (node === ancestor) return true;
  return false;
}

function firstHeading(page: HtmlPage, before: (element: Element) => boolean): Element | undefined {
  return page.visibleElements.find((element) => element.name === 'h1' && before(element) && page.text(element) !== '');
}

/** The first date shown before the body, in the record's part of the page: the article's dateline. */
function datelineBefore(page: HtmlPage, before: (element: Element) => boolean): Located | undefined {
  for (const slot of regionsOf(page).slots) {
    if (!before(slot.element)) continue;
    const date = normaliseValue('date', slot.text, page.valueContext);
    if (date !== undefined) return { value: date.value, element: slot.element };
  }
  return undefined;
}
