import { isProbablyReaderable } from '@mozilla/readability';
import type { AnyNode, Document, Element } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { embeddedFacts, type EmbeddedFact, type EmbeddedSource } from '../embedded';
import { LazyValueContext, normaliseValue, pageDecimalMark, type ValueContext } from '../values';
import { childElements, visibleText } from '../apply/page-text';
import { familyOf, meaningOf, type FieldMeaning, type TypeFamily } from '../vocabulary';
import { readArticle } from './article';
import { boundNesting } from '@trawl/extraction/bounded-nesting';

/** A page's fields by plain-English name: one value, or a list for list fields (ingredients). */
export type GenericRecord = Record<string, string | string[]>;

/** When sources disagree, the first in this order wins: JSON-LD is written for machines with most care. */
const SOURCE_RANK: Readonly<Record<EmbeddedSource, number>> = { 'json-ld': 0, microdata: 1, rdfa: 2, opengraph: 3, meta: 3 };
/** Added to a fallback path's source rank: past every source. */
const FALLBACK_RANK = 10;
/** What a page is about when it holds several typed items: a product page also has an Organization. */
const FAMILY_ORDER: readonly TypeFamily[] = ['product', 'recipe', 'job', 'event', 'article', 'person', 'other'];

interface Candidate {
  meaning: FieldMeaning;
  value: string;
  extra?: Record<string, string>;
  rank: number;
}

/**
 * Fields every page gets without a recipe: its embedded data (JSON-LD, microdata, RDFa, OpenGraph,
 * meta tags) through `meaningOf`, normalised with `normaliseValue` — for a product page `name`,
 * `price` and `currency`, `sku`, `availability`, `brand`, `gtin`, `mpn`, `rating`, `review_count`,
 * `image_url`, `description`…; for an article page (embedded Article type, `og:type` article, or,
 * on a page of no other type, Readability's verdict) also `headline`, `author`, `date_published`
 * and `body`, the article's text as `articleOf` reads it.
 *
 * Only the page's main item counts: the first item of the page's main type (a product before an
 * article before an organisation), in each source. When sources disagree, JSON-LD wins, then
 * microdata, then RDFa, then meta tags. Only fields present on the page; never empty strings.
 *
 * @param page.html decoded page HTML
 * @param page.url the page's final URL
 * @param page.document the page already parsed (cheerio's or htmlparser2's document), to skip parsing again
 */
export function genericRecord(page: { html: string; url: URL; document?: Document }): GenericRecord {
  const document = page.document ?? parseDocument(boundNesting(page.html));
  const facts = embeddedFacts(document, page.url);
  const context = valueContextOf(document, page.url);
  const family = mainFamily(facts);
  const record = recordOf(chooseFacts(facts, family), context);

  const ogType = facts.find((fact) => fact.rootType === 'og' && fact.path === 'type')?.value.toLowerCase();
  const declared = family === 'article' || ogType === 'article';
  const mayBeArticle = family === undefined || family === 'other';
  if (declared || mayBeArticle) {
    const article = readArticle(document, page.url, (readable) => declared || isProbablyReaderable(readable));
    if (article !== undefined) {
      setIfAbsent(record, 'headline', record.title ?? article.headline);
      setIfAbsent(record, 'author', article.author);
      setIfAbsent(record, 'date_published', article.date_published);
      // Readability's text over markup's `articleBody`, which pages often cut short or leave stale.
      record.body = article.body;
    }
  }
  return record;
}

/** The family of the page's main item; undefined when it has no typed item worth a record. */
function mainFamily(facts: readonly EmbeddedFact[]): TypeFamily | undefined {
  const families = new Set<TypeFamily>();
  for (const fact of facts) {
    if (fact.source === 'opengraph' || fact.source === 'meta') continue;
    const family = familyOf(fact.rootType);
    if (family !== undefined) families.add(family);
  }
  const ogType = facts.find((fact) => fact.rootType === 'og' && fact.path === 'type')?.value.toLowerCase();
  if (ogType === 'product' || ogType === 'og:product') families.add('product');
  if (ogType === 'article') families.add('article');
  return FAMILY_ORDER.find((family) => families.has(family));
}

/**
 * The facts of the main item of each source, and all meta tags. The main item is the one of the
 * main family saying most (distinct fields): a product page's related products come as small
 * items of the same type, before or after it.
 */
function chooseFacts(facts: readonly EmbeddedFact[], family: TypeFamily | undefined): EmbeddedFact[] {
  const fieldsByItem = new Map<string, Set<string>>();
  for (const fact of facts) {
    if (fact.source === 'opengraph' || fact.source === 'meta' || family === undefined || familyOf(fact.rootType) !== family) continue;
    const meaning = meaningOf(fact.rootType, fact.path);
    if (meaning === undefined) continue;
    const key = `${fact.source} ${fact.item}`;
    const fields = fieldsByItem.get(key) ?? new Set<string>();
    fields.add(meaning.name);
    fieldsByItem.set(key, fields);
  }
  const mainItem = new Map<EmbeddedSource, { key: string; size: number }>();
  for (const [key, fields] of fieldsByItem) {
    const source = key.slice(0, key.indexOf(' ')) as EmbeddedSource;
    const held = mainItem.get(source);
    if (held === undefined || fields.size > held.size) mainItem.set(source, { key, size: fields.size });
  }
  const chosen = new Set([...mainItem.values()].map((item) => item.key));
  return facts.filter((fact) => fact.source === 'opengraph' || fact.source === 'meta' || chosen.has(`${fact.source} ${fact.item}`));
}

function recordOf(facts: readonly EmbeddedFact[], context: ValueContext): GenericRecord {
  const best = new Map<string, Candidate[]>();
  for (const fact of facts) {
    const meaning = meaningOf(fact.rootType, fact.path);
    if (meaning === undefined) continue;
    const normalised = normaliseValue(meaning.kind, fact.value, context);
    if (normalised === undefined || normalised.value === '') continue;
    if (meaning.name === 'author' && /^https?:\/\//i.test(normalised.value)) continue;
    // A field's proper path in any source beats a fallback path (`productID` for `sku`) in a better one.
    const rank = SOURCE_RANK[fact.source] + (meaning.fallback ? FALLBACK_RANK : 0);
    const candidate: Candidate = { meaning, value: normalised.value, extra: normalised.extra, rank };
    const held = best.get(meaning.name);
    if (held === undefined || candidate.rank < held[0].rank) best.set(meaning.name, [candidate]);
    else if (candidate.rank === held[0].rank) held.push(candidate);
  }
  const record: GenericRecord = {};
  for (const [name, candidates] of best) {
    if (candidates[0].meaning.many) {
      record[name] = [...new Set(candidates.map((candidate) => candidate.value))];
      continue;
    }
    // A zero price is a placeholder when the same source states another.
    const chosen = (name === 'price' && candidates.find((candidate) => Number(candidate.value) > 0)) || candidates[0];
    record[name] = chosen.value;
    if (name === 'price' && chosen.extra?.currency !== undefined) setIfAbsent(record, 'currency', chosen.extra.currency);
  }
  return record;
}

function setIfAbsent(record: GenericRecord, name: string, value: string | string[] | undefined): void {
  if (record[name] === undefined && value !== undefined && value !== '') record[name] = value;
}

/** The page's URL and language, and its decimal mark worked out the first time a number leaves its own open. */
function valueContextOf(document: Document, pageUrl: URL): ValueContext {
  const lang = languageOf(document);
  return new LazyValueContext(pageUrl, lang, () => {
    const html = document.children.find((node: AnyNode): node is Element => node.type === 'tag' && node.name === 'html');
    const body = html === undefined ? undefined : (childElements(html).find((element) => element.name === 'body') ?? html);
    return body === undefined ? undefined : pageDecimalMark(visibleText(body), lang);
  });
}

/** The `lang` of the page's `<html>` element, if any. */
function languageOf(document: Document): string | undefined {
  const html = document.children.find((node: AnyNode): node is Element => node.type === 'tag' && node.name === 'html');
  const lang = html?.attribs.lang?.trim();
  return lang === undefined || lang === '' ? undefined : lang;
}
