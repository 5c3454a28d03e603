import {
  BODY_MATCH_F1,
  type AttributeKind,
  type AttributeKinds,
  type TruthListItem,
  type TruthRecord,
} from '../fixtures/web/sites/extract/truth';

/*
 * Scoring of `extract=auto` answers.
 *
 * 1. The synthetic sites (`test/fixtures/web/sites/extract`): Trawl learns its field names per
 *    domain, so each truth attribute is first mapped to the predicted field that agrees with it most
 *    often over the scored pages of a page type (one-to-one; a list attribute to a list field, and
 *    its records' attributes likewise), then precision = correct predicted values / every predicted
 *    value (junk fields and leaked ads count against it) and recall = correct / every truth value.
 * 2. The public benchmarks (bench/extract-bench.ts): the rules of their own evaluate.py scripts —
 *    product attributes with one predicted value each, micro-averaged; article bodies by word
 *    4-shingles, macro-averaged over pages.
 */

/** A predicted value as it left the JSON: strings, numbers and booleans. */
export type Scalar = string | number | boolean;

/** One page to score: its truth and what `extract=auto` answered as `parsed` (undefined when the fetch failed). */
export interface ScoredPage {
  /** Absolute URL the page was fetched at (relative links in values resolve against it). */
  url: string;
  pageType: string;
  truth: TruthRecord;
  parsed: unknown;
}

/**
 * Truth attribute → predicted field name, per page type. List attributes appear as `products` →
 * `items` and their records' attributes as `products[].name` → `items[].title`. Unmapped truth
 * attributes are absent.
 */
export type FieldMapping = Record<string, Record<string, string>>;

export interface PageScore {
  url: string;
  correct: number;
  predicted: number;
  expected: number;
  /** Wrong, missing and junk values, for a failure message. */
  mistakes: string[];
}

export interface SiteScore {
  /** correct / predicted (1 when nothing was predicted and nothing expected, 0 when nothing was predicted). */
  precision: number;
  /** correct / expected. */
  recall: number;
  correct: number;
  predicted: number;
  expected: number;
  mapping: FieldMapping;
  pages: PageScore[];
}

// ---------------------------------------------------------------------------------------------
// Value normalisation

/** Trimmed, whitespace runs collapsed to one space, Unicode NFC. */
export function normaliseText(value: string): string {
  return value.normalize('NFC').replace(/\s+/g, ' ').trim();
}

/** A plain decimal number (`"1299.00"`, `"1299"`, `1299`); anything else (symbols, separators) is undefined. */
export function decimalValue(value: Scalar): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  // Python's Decimal syntax as the product benchmark parses it (sign, digits, point, exponent).
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  return Number(text);
}

/** A schema.org or ISO term: case-insensitive, without a `schema.org/` prefix. */
export function normaliseTerm(value: string): string {
  return normaliseText(value)
    .replace(/^https?:\/\/(www\.)?schema\.org\//i, '')
    .toLowerCase();
}

/** `YYYY-MM-DD` of an ISO date or date-time, else undefined. */
export function isoDateOf(value: string): string | undefined {
  return /^(\d{4}-\d{2}-\d{2})(?:$|[T ])/.exec(value.trim())?.[1];
}

/** Whether a predicted value equals a truth value under the attribute's kind. */
export function valueMatches(kind: AttributeKind, truth: string, predicted: Scalar, pageUrl: string): boolean {
  const text = String(predicted);
  switch (kind) {
    case 'text':
      return normaliseText(text) === normaliseText(truth);
    case 'enum':
      return normaliseTerm(text) === normaliseTerm(truth);
    case 'price':
    case 'number': {
      const value = decimalValue(predicted);
      return value !== undefined && Math.abs(value - Number(truth)) < 1e-9;
    }
    case 'date': {
      const date = isoDateOf(text);
      return date !== undefined && date === truth;
    }
    case 'url':
      return sameUrl(text, truth, pageUrl);
    case 'body':
      return shingleF1(truth, text) >= BODY_MATCH_F1;
  }
}

function sameUrl(predicted: string, truth: string, pageUrl: string): boolean {
  try {
    const a = new URL(predicted.trim(), pageUrl);
    const b = new URL(truth, pageUrl);
    a.hash = '';
    b.hash = '';
    return a.href === b.href;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Flattening a predicted record

/** One list field of a page: its records, each flattened to scalar fields. */
type FlatList = Map<string, Scalar>[];

interface FlatRecord {
  scalars: Map<string, Scalar>;
  lists: Map<string, FlatList>;
  /** Values that no truth attribute can map to (e.g. lists nested in list records): they count as predicted, never as correct. */
  unmappable: string[];
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isScalar(value: unknown): value is Scalar {
  return (
    (typeof value === 'string' && normaliseText(value) !== '') ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    typeof value === 'boolean'
  );
}

/**
 * Scalars of an object, nested objects as dotted names (`offer.price`). A list of plain values
 * counts as one value, its items joined by line breaks (e.g. body paragraphs); a list of records
 * goes to `onList`.
 */
function flattenObject(
  value: Record<string, unknown>,
  prefix: string,
  scalars: Map<string, Scalar>,
  onList: (name: string, items: unknown[]) => void,
): void {
  for (const [key, child] of Object.entries(value)) {
    const name = `${prefix}${key}`;
    if (isScalar(child)) scalars.set(name, child);
    else if (isPlainObject(child)) flattenObject(child, `${name}.`, scalars, onList);
    else if (Array.isArray(child)) {
      const plain = child.filter(isScalar);
      if (plain.length === child.length) {
        if (plain.length > 0) scalars.set(name, plain.map(String).join('\n'));
      } else onList(name, child);
    }
  }
}

function countLeaves(value: unknown, into: string[], name: string): void {
  if (isScalar(value)) into.push(`${name}=${String(value)}`);
  else if (Array.isArray(value)) value.forEach((item) => countLeaves(item, into, `${name}[]`));
  else if (isPlainObject(value)) for (const [key, child] of Object.entries(value)) countLeaves(child, into, `${name}.${key}`);
}

/** `parsed` as scalar fields, list fields of flat records, and unmappable leaves. */
export function flattenPredicted(parsed: unknown): FlatRecord {
  const flat: FlatRecord = { scalars: new Map(), lists: new Map(), unmappable: [] };
  if (!isPlainObject(parsed)) {
    countLeaves(parsed, flat.unmappable, '(root)');
    return flat;
  }
  flattenObject(parsed, '', flat.scalars, (name, items) => {
    const records: FlatList = [];
    for (const item of items) {
      if (!isPlainObject(item)) {
        countLeaves(item, flat.unmappable, `${name}[]`);
        continue;
      }
      const record = new Map<string, Scalar>();
      flattenObject(item, '', record, (inner, innerItems) => countLeaves(innerItems, flat.unmappable, `${name}[].${inner}`));
      records.push(record);
    }
    flat.lists.set(name, records);
  });
  return flat;
}

// ---------------------------------------------------------------------------------------------
// Mapping and scoring of the synthetic sites

interface Candidate {
  attribute: string;
  field: string;
  agreement: number;
}

/**
 * One-to-one assignment, greedy by agreement (ties: a field named like the attribute first, then
 * by name); pairs that never agree are left out unless field and attribute have the same name.
 */
function assign(candidates: Candidate[]): Map<string, string> {
  const sorted = candidates
    .filter((c) => c.agreement > 0)
    .sort(
      (a, b) =>
        b.agreement - a.agreement ||
        Number(b.field === b.attribute) - Number(a.field === a.attribute) ||
        a.attribute.localeCompare(b.attribute) ||
        a.field.localeCompare(b.field),
    );
  const mapping = new Map<string, string>();
  const taken = new Set<string>();
  for (const c of sorted) {
    if (mapping.has(c.attribute) || taken.has(c.field)) continue;
    mapping.set(c.attribute, c.field);
    taken.add(c.field);
  }
  // A field that never agrees is still the attribute's when it has its very name (its values are
  // then wrong rather than junk, which reads better in a failure and changes no count).
  for (const c of candidates) {
    if (c.field === c.attribute && !mapping.has(c.attribute) && !taken.has(c.field)) {
      mapping.set(c.attribute, c.field);
      taken.add(c.field);
    }
  }
  return mapping;
}

interface PreparedPage {
  page: ScoredPage;
  flat: FlatRecord;
}

function scalarKind(kinds: AttributeKinds, attribute: string): AttributeKind {
  const kind = kinds[attribute];
  if (kind === undefined || typeof kind !== 'string') throw new Error(`no scalar kind for truth attribute "${attribute}"`);
  return kind;
}

function listKinds(kinds: AttributeKinds, attribute: string): Record<string, AttributeKind> {
  const kind = kinds[attribute];
  if (kind === undefined || typeof kind === 'string') throw new Error(`no list kinds for truth attribute "${attribute}"`);
  return kind.list;
}

/** Pairs truth items with predicted items, most agreeing pairs first (ties: nearer positions), and counts agreeing values. */
function alignItems(
  truthItems: readonly TruthListItem[],
  predictedItems: FlatList,
  subMapping: Map<string, string>,
  kinds: Record<string, AttributeKind>,
  pageUrl: string,
): { correct: number; pairs: Map<number, number> } {
  const scores: { t: number; p: number; score: number }[] = [];
  truthItems.forEach((item, t) => {
    predictedItems.forEach((predicted, p) => {
      let score = 0;
      for (const [attribute, field] of subMapping) {
        const truth = item[attribute];
        const value = predicted.get(field);
        if (truth !== undefined && value !== undefined && valueMatches(kinds[attribute], truth, value, pageUrl)) score++;
      }
      if (score > 0) scores.push({ t, p, score });
    });
  });
  scores.sort((a, b) => b.score - a.score || Math.abs(a.t - a.p) - Math.abs(b.t - b.p) || a.t - b.t);
  const pairs = new Map<number, number>();
  const usedPredicted = new Set<number>();
  let correct = 0;
  for (const { t, p, score } of scores) {
    if (pairs.has(t) || usedPredicted.has(p)) continue;
    pairs.set(t, p);
    usedPredicted.add(p);
    correct += score;
  }
  return { correct, pairs };
}

/** Multiset agreement of one list attribute's record attribute with one predicted record field, over pages. */
function subAgreement(
  pages: PreparedPage[],
  listAttribute: string,
  listField: string,
  attribute: string,
  field: string,
  kind: AttributeKind,
): number {
  let agreement = 0;
  for (const { page, flat } of pages) {
    const truthItems = page.truth[listAttribute];
    const predictedItems = flat.lists.get(listField);
    if (!Array.isArray(truthItems) || !predictedItems) continue;
    const unused = predictedItems.map((item) => item.get(field));
    for (const item of truthItems) {
      const truth = item[attribute];
      if (truth === undefined) continue;
      const at = unused.findIndex((value) => value !== undefined && valueMatches(kind, truth, value, page.url));
      if (at >= 0) {
        agreement++;
        unused[at] = undefined;
      }
    }
  }
  return agreement;
}

function subMappingOf(
  pages: PreparedPage[],
  listAttribute: string,
  listField: string,
  kinds: Record<string, AttributeKind>,
): Map<string, string> {
  const fields = new Set<string>();
  for (const { flat } of pages) for (const item of flat.lists.get(listField) ?? []) for (const name of item.keys()) fields.add(name);
  const candidates: Candidate[] = [];
  for (const attribute of Object.keys(kinds)) {
    for (const field of fields)
      candidates.push({ attribute, field, agreement: subAgreement(pages, listAttribute, listField, attribute, field, kinds[attribute]) });
  }
  return assign(candidates);
}

function listCorrect(
  pages: PreparedPage[],
  listAttribute: string,
  listField: string,
  subMapping: Map<string, string>,
  kinds: Record<string, AttributeKind>,
): number {
  let correct = 0;
  for (const { page, flat } of pages) {
    const truthItems = page.truth[listAttribute];
    const predictedItems = flat.lists.get(listField);
    if (Array.isArray(truthItems) && predictedItems) correct += alignItems(truthItems, predictedItems, subMapping, kinds, page.url).correct;
  }
  return correct;
}

interface TypeMapping {
  scalars: Map<string, string>;
  lists: Map<string, { field: string; attributes: Map<string, string> }>;
}

function mapPageType(pages: PreparedPage[], kinds: AttributeKinds): TypeMapping {
  const truthScalars = new Set<string>();
  const truthLists = new Set<string>();
  const fieldScalars = new Set<string>();
  const fieldLists = new Set<string>();
  for (const { page, flat } of pages) {
    for (const [attribute, value] of Object.entries(page.truth)) (Array.isArray(value) ? truthLists : truthScalars).add(attribute);
    for (const name of flat.scalars.keys()) fieldScalars.add(name);
    for (const name of flat.lists.keys()) fieldLists.add(name);
  }
  const scalarCandidates: Candidate[] = [];
  for (const attribute of truthScalars) {
    const kind = scalarKind(kinds, attribute);
    for (const field of fieldScalars) {
      let agreement = 0;
      for (const { page, flat } of pages) {
        const truth = page.truth[attribute];
        const value = flat.scalars.get(field);
        if (typeof truth === 'string' && value !== undefined && valueMatches(kind, truth, value, page.url)) agreement++;
      }
      scalarCandidates.push({ attribute, field, agreement });
    }
  }
  const subMappings = new Map<string, Map<string, string>>();
  const listCandidates: Candidate[] = [];
  for (const attribute of truthLists) {
    const kindsOfItems = listKinds(kinds, attribute);
    for (const field of fieldLists) {
      const subMapping = subMappingOf(pages, attribute, field, kindsOfItems);
      subMappings.set(`${attribute}\u0000${field}`, subMapping);
      listCandidates.push({ attribute, field, agreement: listCorrect(pages, attribute, field, subMapping, kindsOfItems) });
    }
  }
  const lists = new Map<string, { field: string; attributes: Map<string, string> }>();
  for (const [attribute, field] of assign(listCandidates))
    lists.set(attribute, { field, attributes: subMappings.get(`${attribute}\u0000${field}`)! });
  return { scalars: assign(scalarCandidates), lists };
}

function short(value: unknown): string {
  const text = String(value).replace(/\s+/g, ' ');
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}…` : text);
}

function scorePage({ page, flat }: PreparedPage, mapping: TypeMapping, kinds: AttributeKinds): PageScore {
  const mistakes: string[] = [];
  let correct = 0;
  let expected = 0;
  const usedScalars = new Set<string>();
  const usedLists = new Set<string>();
  for (const [attribute, truth] of Object.entries(page.truth)) {
    if (typeof truth === 'string') {
      expected++;
      const field = mapping.scalars.get(attribute);
      const value = field === undefined ? undefined : flat.scalars.get(field);
      if (field !== undefined) usedScalars.add(field);
      if (value !== undefined && valueMatches(scalarKind(kinds, attribute), truth, value, page.url)) correct++;
      else mistakes.push(`${attribute}: expected ${short(truth)}, got ${value === undefined ? 'nothing' : `${short(value)} (${field})`}`);
      continue;
    }
    const itemKinds = listKinds(kinds, attribute);
    const expectedValues = truth.reduce((sum, item) => sum + Object.keys(item).length, 0);
    expected += expectedValues;
    const list = mapping.lists.get(attribute);
    const items = list === undefined ? undefined : flat.lists.get(list.field);
    if (list === undefined || items === undefined) {
      mistakes.push(`${attribute}: expected ${truth.length} records, got none`);
      continue;
    }
    usedLists.add(list.field);
    const { correct: listCorrectValues, pairs } = alignItems(truth, items, list.attributes, itemKinds, page.url);
    correct += listCorrectValues;
    if (listCorrectValues < expectedValues)
      mistakes.push(
        `${attribute}: ${listCorrectValues} of ${expectedValues} values right (${pairs.size} of ${truth.length} records matched)`,
      );
  }
  const attributeOfScalar = new Map([...mapping.scalars].map(([attribute, field]) => [field, attribute]));
  const attributeOfList = new Map([...mapping.lists].map(([attribute, { field }]) => [field, attribute]));
  let predicted = flat.unmappable.length;
  for (const [field, value] of flat.scalars) {
    predicted++;
    if (usedScalars.has(field)) continue;
    const attribute = attributeOfScalar.get(field);
    mistakes.push(attribute ? `${field} (${attribute}) is not on this page, got ${short(value)}` : `junk ${field}: ${short(value)}`);
  }
  for (const [field, items] of flat.lists) {
    const values = items.reduce((sum, item) => sum + item.size, 0);
    predicted += values;
    if (usedLists.has(field)) continue;
    const attribute = attributeOfList.get(field);
    mistakes.push(
      `${attribute ? `${field} (${attribute}) is not on this page` : `junk list ${field}`}: ${items.length} records, ${values} values`,
    );
  }
  for (const leaf of flat.unmappable) mistakes.push(`junk ${short(leaf)}`);
  return { url: page.url, correct, predicted, expected, mistakes };
}

/**
 * Precision and recall of one site's extracted pages against their truth, with the learned mapping
 * of truth attributes to field names (per page type). Unmapped predicted fields are junk: they
 * lower precision; unmapped truth attributes lower recall.
 */
export function scoreSite(pages: readonly ScoredPage[], kinds: AttributeKinds): SiteScore {
  const byType = new Map<string, PreparedPage[]>();
  for (const page of pages) {
    const prepared = { page, flat: flattenPredicted(page.parsed ?? {}) };
    byType.set(page.pageType, [...(byType.get(page.pageType) ?? []), prepared]);
  }
  const mapping: FieldMapping = {};
  const pageScores: PageScore[] = [];
  for (const [pageType, typePages] of [...byType].sort(([a], [b]) => a.localeCompare(b))) {
    const typeMapping = mapPageType(typePages, kinds);
    const names: Record<string, string> = {};
    for (const [attribute, field] of typeMapping.scalars) names[attribute] = field;
    for (const [attribute, { field, attributes }] of typeMapping.lists) {
      names[attribute] = field;
      for (const [sub, subField] of attributes) names[`${attribute}[].${sub}`] = `${field}[].${subField}`;
    }
    mapping[pageType] = Object.fromEntries(Object.entries(names).sort(([a], [b]) => a.localeCompare(b)));
    for (const page of typePages) pageScores.push(scorePage(page, typeMapping, kinds));
  }
  const correct = pageScores.reduce((sum, p) => sum + p.correct, 0);
  const predicted = pageScores.reduce((sum, p) => sum + p.predicted, 0);
  const expected = pageScores.reduce((sum, p) => sum + p.expected, 0);
  return {
    precision: predicted === 0 ? (expected === 0 ? 1 : 0) : correct / predicted,
    recall: expected === 0 ? 1 : correct / expected,
    correct,
    predicted,
    expected,
    mapping,
    pages: pageScores,
  };
}

/** A few lines on what went wrong, worst pages first, for an assertion message. */
export function describeMistakes(score: SiteScore, maxPages = 5): string {
  return score.pages
    .filter((p) => p.mistakes.length > 0)
    .sort((a, b) => b.mistakes.length - a.mistakes.length)
    .slice(0, maxPages)
    .map((p) => `${p.url}\n  ${p.mistakes.join('\n  ')}`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// The public benchmarks' rules (scrapinghub/product-extraction-benchmark and
// scrapinghub/article-extraction-benchmark, evaluate.py)

/** True positives, false positives and false negatives of one page (fractions for article bodies). */
export type TpFpFn = readonly [tp: number, fp: number, fn: number];

export interface Metrics {
  f1: number;
  precision: number;
  recall: number;
}

function precisionScore(tp: number, fp: number, fn: number): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fp === 0) return 0;
  return tp / (tp + fp);
}

function recallScore(tp: number, fp: number, fn: number): number {
  if (fp === 0 && fn === 0) return 1;
  if (tp === 0 && fn === 0) return 0;
  return tp / (tp + fn);
}

/** One predicted value against a set of accepted ones (`hard_matching`): a wrong value is a false positive and, when there was a truth, a false negative. */
export function hardMatching<T>(truth: ReadonlySet<T>, predicted: T | undefined): TpFpFn {
  if (predicted === undefined) return [0, 0, truth.size > 0 ? 1 : 0];
  if (truth.has(predicted)) return [1, 0, 0];
  return [0, 1, truth.size > 0 ? 1 : 0];
}

/**
 * Prices as decimal numbers (`decimal_matching`). A prediction that is not a plain decimal number
 * (the benchmark's script would fail on it) counts as a wrong value.
 */
export function decimalMatching(truth: readonly string[], predicted: Scalar | undefined): TpFpFn {
  const accepted = new Set<number>();
  for (const value of truth) {
    const number = decimalValue(value);
    if (number === undefined) throw new Error(`ground-truth price "${value}" is not a decimal number`);
    accepted.add(number);
  }
  if (predicted === undefined) return hardMatching(accepted, undefined);
  return hardMatching(accepted, decimalValue(predicted) ?? Number.NaN);
}

/** Micro-averaged metrics over pages (`metrics_from_tp_fp_fns` of the product benchmark). */
export function microMetrics(perPage: readonly TpFpFn[]): Metrics {
  const [tp, fp, fn] = perPage.reduce<[number, number, number]>((sum, [a, b, c]) => [sum[0] + a, sum[1] + b, sum[2] + c], [0, 0, 0]);
  const precision = precisionScore(tp, fp, fn);
  const recall = recallScore(tp, fp, fn);
  return { f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0, precision, recall };
}

/**
 * The product benchmark's availability as a system reports it: values ending in an in-stock term
 * (in stock, limited, pre-order, …) are `InStock`, out-of-stock ones `OutOfStock` (the extruct
 * baseline's suffix lists), and anything else or nothing is `InStock` ("a required attribute — in
 * case it's not clear that the product is out-of-stock, it's assumed to be in-stock").
 */
export function benchmarkAvailability(value: Scalar | undefined): 'InStock' | 'OutOfStock' {
  const text = value === undefined ? '' : String(value).trim().toLowerCase();
  const outOfStock = ['outofstock', 'out_of_stock', 'sold_out', 'discontinued', 'soldout'];
  return outOfStock.some((suffix) => text.endsWith(suffix)) ? 'OutOfStock' : 'InStock';
}

/** The first scalar of a predicted value ("one predicted value per attribute"); lists give their first item. */
export function firstScalar(value: unknown): Scalar | undefined {
  if (isScalar(value)) return typeof value === 'string' ? value.trim() : value;
  if (Array.isArray(value)) {
    for (const item of value) {
      const first = firstScalar(item);
      if (first !== undefined) return first;
    }
  }
  return undefined;
}

/** Words as the article benchmark tokenises them (Python's Unicode `\w+`). */
export function benchmarkTokens(text: string): string[] {
  return text.match(/[\p{L}\p{N}_]+/gu) ?? [];
}

function shingleCounts(text: string, n: number): Map<string, number> {
  const tokens = benchmarkTokens(text);
  const counts = new Map<string, number>();
  // As `_ngrams`: at least one (possibly shorter) shingle when there is any token.
  for (let i = 0; i < Math.max(1, tokens.length - n + 1); i++) {
    const shingle = tokens.slice(i, i + n);
    if (shingle.length === 0) continue;
    const key = shingle.join('\u0000');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * TP/FP/FN over word 4-shingles of an article body, normalised to sum to 1 so that long texts do
 * not weigh more (`string_shingle_matching`).
 */
export function shingleMatching(truth: string, predicted: string, n = 4): TpFpFn {
  const t = shingleCounts(truth, n);
  const p = shingleCounts(predicted, n);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...t.keys(), ...p.keys()])) {
    const trueCount = t.get(key) ?? 0;
    const predCount = p.get(key) ?? 0;
    tp += Math.min(trueCount, predCount);
    fp += Math.max(0, predCount - trueCount);
    fn += Math.max(0, trueCount - predCount);
  }
  const sum = tp + fp + fn;
  return sum > 0 ? [tp / sum, fp / sum, fn / sum] : [0, 0, 0];
}

/** Shingle F1 of one body against its truth (0 when either is empty and the other is not). */
export function shingleF1(truth: string, predicted: string): number {
  const [tp, fp, fn] = shingleMatching(truth, predicted);
  const precision = precisionScore(tp, fp, fn);
  const recall = recallScore(tp, fp, fn);
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}

/**
 * The article benchmark's metrics (`metrics_from_tp_fp_fns`): precision averaged over pages with a
 * prediction, recall over pages with a truth, F1 of the two averages.
 */
export function macroMetrics(perPage: readonly TpFpFn[]): Metrics {
  const mean = (values: number[]): number => (values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length);
  const precision = mean(perPage.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => precisionScore(tp, fp, fn)));
  const recall = mean(perPage.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => recallScore(tp, fp, fn)));
  return { f1: precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0, precision, recall };
}

/** Whether the whole text matches token for token (the article benchmark's "accuracy"). */
export function exactTokens(truth: string, predicted: string): boolean {
  const a = benchmarkTokens(truth);
  const b = benchmarkTokens(predicted);
  return a.length === b.length && a.every((token, i) => token === b[i]);
}

/** Attributes the product benchmark scores (evaluate.py), then those it annotates without scoring. */
export const PRODUCT_ATTRIBUTES = ['price', 'sku', 'availability', 'InStock', 'OutOfStock', 'brand', 'gtin', 'mpn'] as const;
export type ProductAttribute = (typeof PRODUCT_ATTRIBUTES)[number];

/** One page's ground truth: every accepted value per attribute (ground-truth.json). */
export type ProductTruth = Partial<Record<string, string[] | string>>;

/** One predicted value per attribute, as a system's output file holds it. */
export type ProductPrediction = Partial<Record<ProductAttribute, Scalar>>;

/**
 * Trawl's `parsed` as a product benchmark prediction: the fields of the same names (a fixed mapping,
 * nothing learned), one value each; availability read as the benchmark reads it (empty = InStock),
 * and `InStock` / `OutOfStock` derived from it as the benchmark's baseline does.
 */
export function productPredictionOf(parsed: unknown): ProductPrediction {
  const fields = isPlainObject(parsed) ? parsed : {};
  const prediction: ProductPrediction = {};
  for (const attribute of ['price', 'sku', 'brand', 'gtin', 'mpn'] as const) {
    const value = firstScalar(fields[attribute]);
    if (value !== undefined) prediction[attribute] = value;
  }
  const availability = benchmarkAvailability(firstScalar(fields.availability));
  prediction.availability = availability;
  prediction[availability] = availability;
  return prediction;
}

/** TP/FP/FN of one page per attribute under the benchmark's rules (price as a decimal, the rest exact after trimming). */
export function scoreProductPage(truth: ProductTruth, prediction: ProductPrediction): Record<ProductAttribute, TpFpFn> {
  const accepted = (attribute: string): string[] => {
    const value = truth[attribute];
    return value === undefined ? [] : (Array.isArray(value) ? value : [value]).map((v) => v.trim());
  };
  const scored = {} as Record<ProductAttribute, TpFpFn>;
  for (const attribute of PRODUCT_ATTRIBUTES) {
    const predicted = prediction[attribute];
    scored[attribute] =
      attribute === 'price'
        ? decimalMatching(accepted('price'), predicted)
        : hardMatching(new Set(accepted(attribute)), predicted === undefined ? undefined : String(predicted).trim());
  }
  return scored;
}

/** Field names tried, in order, for an article's body. */
export const ARTICLE_BODY_FIELDS = ['body', 'article_body', 'articleBody', 'content', 'text'] as const;

/**
 * The article body in Trawl's `parsed`: the first field of {@link ARTICLE_BODY_FIELDS} there, else
 * the longest text value (field names are learned, so the bench says how often it fell back).
 */
export function articleBodyOf(parsed: unknown): { body: string; field?: string; fallback: boolean } {
  if (!isPlainObject(parsed)) return { body: '', fallback: false };
  for (const name of ARTICLE_BODY_FIELDS) {
    const value = parsed[name];
    if (typeof value === 'string' && value.trim() !== '') return { body: value, field: name, fallback: false };
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return { body: value.join('\n'), field: name, fallback: false };
  }
  const { scalars } = flattenPredicted(parsed);
  let best: { body: string; field?: string } = { body: '' };
  for (const [field, value] of scalars) if (typeof value === 'string' && value.length > best.body.length) best = { body: value, field };
  return { ...best, fallback: best.field !== undefined };
}
