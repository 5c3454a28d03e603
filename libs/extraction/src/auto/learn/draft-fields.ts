import type { Element } from 'domhandler';
import type { HtmlPage } from '../apply/html-page';
import { NON_VALUE_ELEMENTS } from '@trawl/extraction/dom';
import { descendants, parentElement } from '../apply/page-text';
import { matchAll } from '../apply/selectors';
import { factsByTrust, runExtractor, withoutAffixes } from '../apply/run-extractor';
import type { CssExtractorStep, Extractor, ItemField, ListField, ValueField } from '../recipe';
import { detectKinds, normaliseValue, sameValue, type ValueKind } from '../values';
import { parseAvailability } from '../values/availability';
import { canonicalFieldName, glossaryEntryOf, meaningOf } from '../vocabulary';
import { nameOfLabel, nameOfMarkup, snakeName, uniqueName } from './field-names';
import { articleDrafts, type ArticleDraft } from './article-fields';
import { cssMeanings, learnSelectors, toCssExtractor, type SlotObservation } from './learn-selectors';
import { selectorCandidates } from './selector-candidates';
import { layoutStep, regionsOf, type TextSlot } from './page-regions';

export { regionsOf };

/** A field learned from training pages, before it is checked on held-out pages. */
export interface FieldDraft {
  readonly field: ValueField | ListField;
  /**
   * Named by something explicit on the page (embedded data, microdata, a label) rather than by
   * the layout: the only kind kept when a page type has too few pages to hold any out.
   */
  readonly wellAnchored: boolean;
  /**
   * The field's value on a page found another way than its own extractors (the embedded value,
   * the slot at the same layout place), to check the extractors on held-out pages; undefined
   * when there is no other way on that page.
   */
  reference(page: HtmlPage): string | undefined;
}

/** Kinds a value can be recognised as, most specific first; anything else is text. */
const SPECIFIC_KINDS: readonly ValueKind[] = ['price', 'date', 'gtin', 'email', 'phone', 'rating', 'availability'];
/** Fewest pages a layout-learned field must be seen on. */
const MIN_LAYOUT_SUPPORT = 2;
/** What lists of records on sites are lists of, singular. */
const LIST_NOUNS: ReadonlySet<string> = new Set([
  'product',
  'result',
  'item',
  'article',
  'post',
  'review',
  'comment',
  'offer',
  'listing',
  'job',
  'event',
  'hit',
]);
/** Embedded drafts with the article's fields: its CSS read after embedded data, the body before (markup's is often cut short). */
function withArticleFields(drafts: FieldDraft[], article: readonly ArticleDraft[]): FieldDraft[] {
  for (const { field, reference } of article) {
    const twin = drafts.find((draft) => draft.field.name === field.name && draft.field.type === 'value');
    if (twin === undefined || twin.field.type !== 'value') {
      drafts.push({ field, wellAnchored: true, reference });
      continue;
    }
    twin.field.extractors =
      field.name === 'body' ? [...field.extractors, ...twin.field.extractors] : [...twin.field.extractors, ...field.extractors];
    twin.field.meaning.push(...field.meaning);
  }
  return drafts;
}

/** Kinds of a list item's fields besides its title. */
const ITEM_KINDS: ReadonlySet<ValueKind> = new Set(['url', 'image_url', 'price', 'date']);

/** Texts saying where a page is in a paginated series. */
const PAGINATION =
  /^(?:(?:page|seite|pagina|página|strona)\s+\d+\s*(?:of|von|de|di|van|z|\/)\s*\d+|(?:showing|displaying|zeige|affichage)?\s*\d+\s*[-–]\s*\d+\s+(?:of|von|de|di|van|sur)\s+\d+.*|\d+\s*\/\s*\d+)$/i;
/** Most elements kept as where an embedded value is shown on one page. */
const MAX_ALIGNED_ELEMENTS = 3;

/**
 * Drafts the fields of one page type from its training pages: embedded data first (aligned to the
 * DOM so that pages without it are still read), then labels, then text slots whose content varies
 * across pages, then lists. Order and names are deterministic for the same pages.
 */
export function draftFields(pages: readonly HtmlPage[]): FieldDraft[] {
  const drafts: FieldDraft[] = [];
  const covered = pages.map(() => new Set<Element>());
  const valuesOf = new Map<FieldDraft, Array<string | undefined>>();
  for (const draft of embeddedDrafts(pages, covered)) {
    drafts.push(draft);
    valuesOf.set(
      draft,
      pages.map((page) => draft.reference(page)),
    );
  }
  // An article's record is its headline, author, date and body: comments, related excerpts and
  // the labels in them ("Posted in: …") are not part of it.
  const article = articleDrafts(pages);
  if (article !== undefined) return withArticleFields(drafts, article);
  for (const draft of labelDrafts(pages, drafts, valuesOf, covered)) {
    drafts.push(draft);
    valuesOf.set(
      draft,
      pages.map((page) => draft.reference(page)),
    );
  }
  if (pages.length >= MIN_LAYOUT_SUPPORT) {
    drafts.push(...slotDrafts(pages, drafts, valuesOf, covered));
    drafts.push(...listDrafts(pages, drafts));
  }
  return drafts;
}

interface EmbeddedEntry {
  readonly name: string;
  readonly kind: ValueKind;
  readonly keys: string[];
  readonly values: Array<string | undefined>;
  readonly elements: Element[][];
}

function embeddedDrafts(pages: readonly HtmlPage[], covered: Array<Set<Element>>): FieldDraft[] {
  const entries = new Map<string, EmbeddedEntry>();
  for (const [index, page] of pages.entries()) {
    for (const fact of factsByTrust(page.embedded)) {
      const meaning = meaningOf(fact.rootType, fact.path);
      if (meaning === undefined) continue;
      let entry = entries.get(meaning.name);
      if (entry === undefined) {
        entry = { name: meaning.name, kind: meaning.kind, keys: [], values: pages.map(() => undefined), elements: pages.map(() => []) };
        entries.set(meaning.name, entry);
      }
      const key = `${fact.rootType}/${fact.path}`;
      if (!entry.keys.includes(key)) entry.keys.push(key);
      if (entry.values[index] !== undefined) continue;
      const normalised = normaliseValue(entry.kind, fact.value, page.valueContext);
      if (normalised === undefined) continue;
      entry.values[index] = normalised.value;
      if (fact.element !== undefined) entry.elements[index] = [fact.element as Element];
    }
  }
  const drafts: FieldDraft[] = [];
  for (const entry of entries.values()) {
    const observations: SlotObservation[] = pages.map((page, index) => {
      const value = entry.values[index];
      const elements =
        entry.elements[index].length > 0 ? entry.elements[index] : value === undefined ? [] : elementsShowing(page, entry.kind, value);
      for (const element of elements) covered[index].add(element);
      return { page, value, elements };
    });
    const attribute = entry.kind === 'image_url' ? 'src' : undefined;
    const css = learnSelectors(observations, entry.kind, attribute, pages.length >= 3 ? MIN_LAYOUT_SUPPORT : 1).filter(
      // One or two pages prove little about a position in the layout.
      (selector) => selector.anchored || pages.length >= 3,
    );
    const embedded: Extractor[] = entry.keys.map((key) => {
      const slash = key.indexOf('/');
      return { type: 'embedded', root_type: key.slice(0, slash), path: key.slice(slash + 1) };
    });
    const field: ValueField = {
      type: 'value',
      name: entry.name,
      kind: entry.kind,
      status: 'active',
      meaning: [...entry.keys.map((key) => `embedded:${key}`), ...cssMeanings(css)],
      extractors: [...embedded, ...css.map(toCssExtractor)],
      ...extraNames(entry.name, entry.kind),
    };
    drafts.push({
      field,
      wellAnchored: true,
      reference: (page) => firstValue(page, embedded, entry.kind),
    });
  }
  return drafts;
}

function labelDrafts(
  pages: readonly HtmlPage[],
  existing: readonly FieldDraft[],
  valuesOf: Map<FieldDraft, Array<string | undefined>>,
  covered: Array<Set<Element>>,
): FieldDraft[] {
  const byLabel = new Map<string, Array<string | undefined>>();
  for (const [index, page] of pages.entries()) {
    const { outsideRecord } = regionsOf(page);
    for (const pair of page.labelPairs) {
      // A label cell is never a value, whatever row it moved to.
      if (pair.labelElement !== undefined) covered[index].add(pair.labelElement);
      // "Pre-order: ships next month" states the stock, it does not label it.
      if (parseAvailability(pair.label) !== undefined) continue;
      covered[index].add(pair.valueElement);
      // Labels in menus, footers, ads and list items are not the page's record.
      if (outsideRecord.has(pair.valueElement)) continue;
      // "More tools: A, B": links to other records, not a value of this one.
      if (linkCount(pair.valueElement) >= 2) continue;
      let values = byLabel.get(pair.label);
      if (values === undefined) {
        values = pages.map(() => undefined);
        byLabel.set(pair.label, values);
      }
      values[index] ??= pair.value;
    }
  }
  const drafts: FieldDraft[] = [];
  const taken = new Set(existing.map((draft) => draft.field.name));
  for (const [label, raw] of byLabel) {
    const present = raw.filter((value): value is string => value !== undefined);
    // The same value on every page is part of the template ("Shipping: free").
    if (present.length >= 2 && present.every((value) => value === present[0])) continue;
    const labelName = nameOfLabel(label);
    const kind = labelKind(labelName, present, pages[0].url);
    const values = raw.map((value, index) =>
      value === undefined ? undefined : normaliseValue(kind, value, pages[index].valueContext)?.value,
    );
    if (values.every((value) => value === undefined)) continue;
    const extractor: Extractor = { type: 'label', label };
    const twin = existing.find((draft) => draft.field.type === 'value' && sameValues(valuesOf.get(draft), values));
    if (twin !== undefined && twin.field.type === 'value') {
      // The label shows what embedded data says: one field, read from the label when the data is missing.
      const embeddedCount = twin.field.extractors.filter((step) => step.type === 'embedded').length;
      twin.field.extractors.splice(embeddedCount, 0, extractor);
      twin.field.meaning.push(`label:${label}`);
      continue;
    }
    if (labelName === undefined) continue;
    const baseName = canonicalFieldName(
      labelName,
      kind,
      values.filter((value): value is string => value !== undefined),
    );
    const name = uniqueName(baseName, taken);
    taken.add(name);
    drafts.push({
      field: {
        type: 'value',
        name,
        kind,
        status: 'active',
        meaning: [`label:${label}`],
        extractors: [extractor],
        ...extraNames(name, kind),
      },
      wellAnchored: true,
      reference: (page) => firstValue(page, [extractor], kind),
    });
  }
  return drafts;
}

function slotDrafts(
  pages: readonly HtmlPage[],
  existing: readonly FieldDraft[],
  valuesOf: Map<FieldDraft, Array<string | undefined>>,
  covered: Array<Set<Element>>,
): FieldDraft[] {
  const byKey = new Map<string, Array<TextSlot | undefined>>();
  for (const [index, page] of pages.entries()) {
    for (const slot of regionsOf(page).slots) {
      let slots = byKey.get(slot.key);
      if (slots === undefined) {
        slots = pages.map(() => undefined);
        byKey.set(slot.key, slots);
      }
      slots[index] = slot;
    }
  }
  // Items of a list on one page are items still where the list is shorter than a list elsewhere.
  const itemPaths = new Set<string>();
  for (const page of pages) for (const region of regionsOf(page).regions) itemPaths.add(region.key.slice(0, region.key.lastIndexOf('|')));
  const inListItem = (key: string): boolean => {
    const path = key.slice(0, key.lastIndexOf('|'));
    for (let at = path.indexOf('>'); at >= 0; at = path.indexOf('>', at + 1)) if (itemPaths.has(path.slice(0, at))) return true;
    return itemPaths.has(path);
  };
  const drafts: FieldDraft[] = [];
  const taken = new Set(existing.map((draft) => draft.field.name));
  const known = existing.map((draft) => valuesOf.get(draft) ?? []);
  // The record's heading first: a breadcrumb or a sticky bar that repeats its text earlier in the
  // page is then the repeat, skipped below, rather than the field.
  const headings = new Set(
    [...byKey.keys()].filter((key) => byKey.get(key)?.some((slot) => slot !== undefined && isRecordHeading(slot.element))),
  );
  const headingFirst = [...byKey].sort(([a], [b]) => Number(headings.has(b)) - Number(headings.has(a)));
  for (const [key, slots] of headingFirst) {
    const present = slots.filter((slot): slot is TextSlot => slot !== undefined);
    if (present.length < MIN_LAYOUT_SUPPORT || inListItem(key)) continue;
    // "Page 2 of 5", "Showing 1–24 of 80": where the page is in a series, not what it holds.
    if (present.some((slot) => PAGINATION.test(slot.text))) continue;
    // Text identical on every page is template; a slot that differs is data.
    if (present.every((slot) => slot.text === present[0].text)) continue;
    if (slots.some((slot, index) => slot !== undefined && isCovered(slot.element, covered[index]))) continue;
    let kind = consensusKind(present.map((slot) => slot.text));
    // Words the template writes around a text value ("by …", "SKU …", "(… reviews)") are not part of it.
    const affixes = kind === 'text' ? templateAffixes(present.map((slot) => slot.text)) : {};
    const cores = slots.map((slot) => (slot === undefined ? undefined : withoutAffixes(slot.text, affixes.prefix, affixes.suffix)));
    const presentCores = cores.filter((core): core is string => core !== undefined);
    if (kind === 'text' && (affixes.prefix ?? affixes.suffix) !== undefined) {
      kind = consensusKind(presentCores);
      if (kind === 'text' && presentCores.every((core) => /^\d{1,9}$/.test(core))) kind = 'number';
    }
    const values = cores.map((core, index) =>
      core === undefined ? undefined : normaliseValue(kind, core, pages[index].valueContext)?.value,
    );
    // Already read as embedded data or a label, shown once more (a sticky header repeats the price).
    if (known.some((other) => values.every((value, index) => value === undefined || value === other[index]))) continue;
    const element = present[0].element;
    const parent = parentElement(element);
    const markupName = nameOfMarkup(element) ?? (parent === undefined || parent.name === 'body' ? undefined : nameOfMarkup(parent));
    const baseName =
      nameOfAffixes(affixes, presentCores) ??
      (kind === 'text' && isRecordHeading(element) ? 'name' : undefined) ??
      markupNameOfKind(
        markupName,
        kind,
        values.filter((value): value is string => value !== undefined),
      ) ??
      (kind === 'price' && isFormerPrice(element, affixes) ? 'regular_price' : undefined) ??
      (kind === 'text' ? undefined : (KIND_NAMES[kind] ?? kind)) ??
      (isBrandBesideTitle(present) ? 'brand' : undefined) ??
      (isProse(presentCores) ? 'description' : undefined);
    if (baseName === undefined) continue;
    const observations = slots.map((slot, index) => ({ page: pages[index], value: values[index], elements: slot ? [slot.element] : [] }));
    const css = learnSelectors(observations, kind, undefined, MIN_LAYOUT_SUPPORT, affixes);
    if (css.length === 0) continue;
    known.push(values);
    const name = uniqueName(baseName, taken);
    taken.add(name);
    drafts.push({
      field: {
        type: 'value',
        name,
        kind,
        status: 'active',
        meaning: [...cssMeanings(css), `slot:${key}`],
        extractors: css.map(toCssExtractor),
        ...extraNames(name, kind),
      },
      wellAnchored: false,
      reference: (page) => {
        const slot = regionsOf(page).slots.find((candidate) => candidate.key === key);
        return slot === undefined
          ? undefined
          : normaliseValue(kind, withoutAffixes(slot.text, affixes.prefix, affixes.suffix), page.valueContext)?.value;
      },
    });
  }
  return drafts;
}

/**
 * Lists of records. On a page that has a record of its own (a product, an article), lists of links
 * are related products, menus and the like, and are left out; on a listing page the largest list
 * of links is the page's content.
 */
function listDrafts(pages: readonly HtmlPage[], existing: readonly FieldDraft[]): FieldDraft[] {
  const byKey = new Map<string, Array<{ page: HtmlPage; items: readonly Element[]; container: Element; linked: boolean; step: string }>>();
  for (const page of pages) {
    for (const region of regionsOf(page).regions) {
      // Other records of the page's own kind (related, also bought) are never its content.
      if (region.related) continue;
      const seen = byKey.get(region.key) ?? [];
      seen.push({ page, items: region.items, container: region.container, linked: region.linked, step: region.itemStep });
      byKey.set(region.key, seen);
    }
  }
  const hasOwnRecord = existing.filter((draft) => draft.wellAnchored).length >= 2;
  const candidates = [...byKey.entries()].filter(([, seen]) => {
    if (seen.length < Math.max(MIN_LAYOUT_SUPPORT, pages.length / 2)) return false;
    const texts = new Set(seen.map(({ page, items }) => items.map((item) => page.text(item)).join('\n')));
    return texts.size > 1 && !(hasOwnRecord && seen.some(({ linked }) => linked));
  });
  const size = (seen: Array<{ page: HtmlPage; items: readonly Element[] }>): number =>
    seen.reduce((sum, { page, items }) => sum + items.reduce((length, item) => length + page.text(item).length, 0), 0);
  // Of the lists of links on a listing page, only the main one (the most text) is the content.
  const linkedLists = candidates.filter(([, seen]) => seen.some(({ linked }) => linked)).sort((a, b) => size(b[1]) - size(a[1]));
  const kept = candidates.filter(([, seen]) => !seen.some(({ linked }) => linked) || seen === linkedLists[0]?.[1]);
  const drafts: FieldDraft[] = [];
  const taken = new Set(existing.map((draft) => draft.field.name));
  for (const [key, seen] of kept) {
    const fields = itemFields(seen);
    if (fields.length === 0) continue;
    const items = itemSelectors(seen);
    if (items.length === 0) continue;
    const first = seen[0];
    const baseName = listName(first.container, first.items[0]);
    const name = uniqueName(baseName, taken);
    taken.add(name);
    drafts.push({
      field: { type: 'list', name, status: 'active', meaning: [`list:${key}`, ...cssMeanings(items)], items, fields },
      wellAnchored: false,
      reference: (page) => {
        const region = regionsOf(page).regions.find((candidate) => candidate.key === key);
        return region === undefined ? undefined : String(region.items.length);
      },
    });
  }
  return drafts;
}

/** Selectors for a list's items: the container's anchors, then its position, with the items' shape. */
function itemSelectors(
  seen: ReadonlyArray<{ page: HtmlPage; items: readonly Element[]; container: Element; step: string }>,
): CssExtractorStep[] {
  const step = seen[0].step;
  const found: CssExtractorStep[] = [];
  for (const candidate of selectorCandidates(seen[0].container)) {
    if (found.some((other) => other.anchored === candidate.anchored)) continue;
    const selector = `${candidate.selector} > ${step}`;
    // Right when it picks the container first on every page, and under it exactly the items.
    const holds = seen.every(
      ({ page, items, container }) =>
        matchAll(candidate.selector, page.elements)[0] === container && matchAll(selector, page.elements).length === items.length,
    );
    if (holds) found.push({ type: 'css', selector, anchored: candidate.anchored });
  }
  return found;
}

/** The fields of a list's items: parts whose text differs from item to item. */
function itemFields(seen: ReadonlyArray<{ page: HtmlPage; items: readonly Element[] }>): ItemField[] {
  interface Part {
    readonly element: Element;
    readonly text: string;
    readonly attribute?: string;
    readonly page: HtmlPage;
    readonly item: Element;
  }
  const byPath = new Map<string, Part[]>();
  let itemCount = 0;
  for (const { page, items } of seen) {
    for (const item of items) {
      itemCount++;
      const inner = descendants(item);
      const occurrences = new Map<string, number>();
      for (const element of [item, ...inner]) {
        if (NON_VALUE_ELEMENTS.has(element.name)) continue;
        const path = relativePath(element, item);
        const add = (suffix: string, text: string | undefined, attribute?: string): void => {
          if (text === undefined || text === '') return;
          const key = `${path}${suffix}`;
          const occurrence = occurrences.get(key) ?? 0;
          occurrences.set(key, occurrence + 1);
          const parts = byPath.get(`${key}|${occurrence}`) ?? [];
          parts.push({ element, text, attribute, page, item });
          byPath.set(`${key}|${occurrence}`, parts);
        };
        if (element.name === 'img') add('@src', element.attribs.src === undefined ? undefined : page.resolve(element.attribs.src), 'src');
        else if (element.name === 'a' && element.attribs.href !== undefined) add('@href', page.resolve(element.attribs.href), 'href');
        if (element.children.some((child) => child.type === 'text' && child.data.trim() !== '')) add('', page.text(element));
      }
    }
  }
  const fields: ItemField[] = [];
  const taken = new Set<string>();
  for (const parts of byPath.values()) {
    if (parts.length < Math.max(2, itemCount / 2)) continue;
    if (new Set(parts.map((part) => part.text)).size < 2) continue;
    const { element, attribute } = parts[0];
    const kind: ValueKind =
      attribute === 'src' ? 'image_url' : attribute === 'href' ? 'url' : consensusKind(parts.map((part) => part.text));
    const texts = parts.map((part) => part.text);
    const baseName =
      attribute === 'src'
        ? 'image'
        : attribute === 'href'
          ? 'url'
          : (markupNameOfKind(nameOfMarkup(element), kind, texts) ??
            (kind === 'text' ? undefined : (KIND_NAMES[kind] ?? kind)) ??
            (/^(?:h[1-6]|a)$/.test(element.name) ? 'title' : undefined));
    if (baseName === undefined || taken.has(baseName)) continue;
    // An item stands for a record of its own page: what tells it apart and leads there (its link,
    // title, image, price, date) belongs to the list; the rest (badges, ratings) to that page.
    if (!ITEM_KINDS.has(kind) && baseName !== 'title') continue;
    const observations: SlotObservation[] = parts.map((part) => ({
      page: part.page,
      value: normaliseValue(kind, part.text, part.page.valueContext)?.value,
      elements: [part.element],
      scope: descendants(part.item),
      stop: part.item,
    }));
    const css = learnSelectors(observations, kind, attribute, MIN_LAYOUT_SUPPORT);
    if (css.length === 0) continue;
    taken.add(baseName);
    fields.push({ name: baseName, kind, extractors: css.map(toCssExtractor) });
  }
  return fields;
}

function relativePath(element: Element, item: Element): string {
  const steps: string[] = [];
  for (let current: Element | undefined = element; current && current !== item; current = parentElement(current))
    steps.push(layoutStep(current));
  return steps.reverse().join('>');
}

function listName(container: Element, item: Element): string {
  const words = `${container.attribs.id ?? ''} ${container.attribs.class ?? ''} ${item.attribs.class ?? ''}`.toLowerCase().split(/[^a-z]+/);
  const noun = words.find((word) => LIST_NOUNS.has(word.replace(/s$/, '')));
  return noun === undefined ? (nameOfMarkup(container) ?? 'items') : `${noun.replace(/s$/, '')}s`;
}

/** The first normalised value of `extractors` on the page. */
function firstValue(page: HtmlPage, extractors: readonly Extractor[], kind: ValueKind): string | undefined {
  for (const extractor of extractors) {
    const found = runExtractor(page, extractor, kind);
    if (found !== undefined) return found.value;
  }
  return undefined;
}

/** Elements of the record showing `value` (normalised as `kind`), innermost first. */
function elementsShowing(page: HtmlPage, kind: ValueKind, value: string): Element[] {
  const { outsideRecord } = regionsOf(page);
  const maxLength = value.length * 3 + 40;
  const found: Element[] = [];
  const context = page.valueContext;
  for (const element of page.elements) {
    if (outsideRecord.has(element) || NON_VALUE_ELEMENTS.has(element.name)) continue;
    let raw: string | undefined;
    if (kind === 'image_url') {
      raw = element.name === 'img' && element.attribs.src !== undefined ? page.resolve(element.attribs.src) : undefined;
    } else {
      const text = page.text(element);
      raw = text.length > 0 && text.length <= maxLength ? text : undefined;
    }
    if (raw === undefined || !sameValue(kind, normaliseValue(kind, raw, context)?.value, value)) continue;
    // An element holding the value inside another: keep the inner one, it is the precise slot.
    const parent = parentElement(element);
    const at = parent === undefined ? -1 : found.indexOf(parent);
    if (at >= 0) found.splice(at, 1);
    found.push(element);
  }
  const body = found.filter((element) => element.name !== 'body' && element.name !== 'html');
  return body.slice(0, MAX_ALIGNED_ELEMENTS);
}

/**
 * A short text without a name of its own right before or after the page's `h1`, repeating across
 * pages (a shop's few brands): the maker of the thing the heading names.
 */
function isBrandBesideTitle(slots: readonly TextSlot[]): boolean {
  const texts = slots.map((slot) => slot.text);
  if (texts.some((text) => text.length > 40 || /\d/.test(text))) return false;
  const beside = slots.filter((slot) => {
    const siblings = parentElement(slot.element)?.children.filter((child): child is Element => child.type === 'tag') ?? [];
    const at = siblings.indexOf(slot.element);
    return siblings[at - 1]?.name === 'h1' || siblings[at + 1]?.name === 'h1';
  });
  return beside.length === slots.length && new Set(texts).size < texts.length;
}

/**
 * Whether the element is the record's main heading: an `h1`, or an element that says it is one
 * (`role="heading"` with `aria-level="1"`). Its text is the record's name.
 */
function isRecordHeading(element: Element): boolean {
  return element.name === 'h1' || (element.attribs.role === 'heading' && element.attribs['aria-level']?.trim() === '1');
}

/**
 * Plain-English names of the kinds a value is recognised as, for a field its markup does not name
 * better. `number` and `text` say nothing of what a value is, and have none.
 */
const KIND_NAMES: Readonly<Partial<Record<ValueKind, string>>> = {
  price: 'price',
  currency: 'currency',
  date: 'date',
  rating: 'rating',
  gtin: 'gtin',
  email: 'email',
  phone: 'phone',
  url: 'url',
  image_url: 'image_url',
  availability: 'availability',
};

/** Words of three letters or fewer that are English, not abbreviations, beside a kind's name (`old_price`, `price_now`). */
const SHORT_WORDS: ReadonlySet<string> = new Set('was now old new our per net low max min top sub tax fee day end'.split(' '));

/**
 * The name a value's markup gives it (`nameOfMarkup`), put in the glossary's words, when it says at
 * least as much as the value's kind (see `KIND_NAMES`): a field the glossary knows for that kind
 * (`was` → `regular_price`, `cost` → `price`, `tel` → `phone`), or the kind's name among other
 * plain words (`sale_price`, `date_published`). Anything else a class may say of a price or a date
 * is an abbreviation (`amt`, `dt`) or how it is shown (`stars`, `big_number`), and gives way to the
 * kind's name. A text or a number has no such name, and keeps its markup's.
 */
function markupNameOfKind(markupName: string | undefined, kind: ValueKind, values: readonly string[]): string | undefined {
  if (markupName === undefined) return undefined;
  const kindName = KIND_NAMES[kind];
  if (kindName === undefined) return canonicalFieldName(markupName, kind, values);
  const entry = glossaryEntryOf(markupName);
  if (entry !== undefined && (entry.kinds === undefined || entry.kinds.includes(kind))) return canonicalFieldName(markupName, kind, values);
  const words = markupName.split('_');
  const plain = words.every((word) => word.length > 3 || SHORT_WORDS.has(word) || kindName.split('_').includes(word));
  return plain && words.includes(kindName.split('_')[0]) ? markupName : undefined;
}

/** Links (with a target) inside `element`. */
function linkCount(element: Element): number {
  let count = element.name === 'a' && element.attribs.href !== undefined ? 1 : 0;
  for (const inner of descendants(element)) if (inner.name === 'a' && inner.attribs.href !== undefined) count++;
  return count;
}

function isCovered(element: Element, covered: ReadonlySet<Element>): boolean {
  let current: Element | undefined = element;
  for (let level = 0; current !== undefined && level < 3; level++, current = parentElement(current)) {
    if (covered.has(current)) return true;
  }
  return false;
}

/**
 * The kind of a label's values: the glossary's when the label (`name`, as `nameOfLabel` writes it)
 * names a field of one kind (`原價` and `UVP` a price, `Tel.` a phone) and every value reads as
 * that kind (`1,390` without its currency), else the kind the values show by themselves.
 */
function labelKind(name: string | undefined, values: readonly string[], pageUrl: URL): ValueKind {
  const detected = consensusKind(values);
  const expected = name === undefined ? undefined : glossaryEntryOf(name)?.kinds;
  if (expected === undefined || expected.length !== 1 || expected[0] === detected || values.length === 0) return detected;
  const [kind] = expected;
  return values.every((value) => normaliseValue(kind, value, { pageUrl }) !== undefined) ? kind : detected;
}

/** The most specific kind every value is recognised as, else `text`. */
export function consensusKind(values: readonly string[]): ValueKind {
  if (values.length === 0) return 'text';
  const kinds = values.map((value) => new Set(detectKinds(value)));
  return SPECIFIC_KINDS.find((kind) => kinds.every((detected) => detected.has(kind))) ?? 'text';
}

function sameValues(a: ReadonlyArray<string | undefined> | undefined, b: ReadonlyArray<string | undefined>): boolean {
  if (a === undefined) return false;
  let shared = 0;
  for (const [index, value] of b.entries()) {
    if (value === undefined || a[index] === undefined) continue;
    if (value !== a[index]) return false;
    shared++;
  }
  return shared > 0;
}

function extraNames(name: string, kind: ValueKind): Pick<ValueField, 'extra_names'> {
  if (kind !== 'price') return {};
  return { extra_names: { currency: name === 'price' ? 'currency' : `${snakeName(name) ?? name}_currency` } };
}

/** Words before a price that make it the price before a sale ("Was £40", "RRP 59 €", "UVP"). */
const FORMER_PRICE_WORDS = /^(?:was|rrp|msrp|list|regular|original|before|old|compare|uvp|statt|avant|prima|antes|voor)\b/i;

/** A price struck through (`<s>`, `<del>`), or introduced by words that say it was the price before. */
function isFormerPrice(element: Element, affixes: Pick<CssExtractorStep, 'prefix' | 'suffix'>): boolean {
  if (affixes.prefix !== undefined && FORMER_PRICE_WORDS.test(affixes.prefix.trim())) return true;
  for (let current: Element | undefined = element; current !== undefined && current.name !== 'body'; current = parentElement(current)) {
    if (current.name === 's' || current.name === 'del' || current.name === 'strike') return true;
  }
  return false;
}

/** Fewest words of every text of a slot that reads as prose. */
const MIN_PROSE_WORDS = 6;

/**
 * Sentences on every page (a product's description, an article's summary): each text has several
 * words, and most end as sentences do.
 */
function isProse(texts: readonly string[]): boolean {
  if (texts.length === 0 || texts.some((text) => text.split(/\s+/).length < MIN_PROSE_WORDS)) return false;
  return texts.filter((text) => /[.!?…]["'”’)]?$/u.test(text.trim())).length * 2 >= texts.length;
}

/** Longest slot text whose template words are told apart from its value, in characters. */
const MAX_AFFIXED_TEXT = 60;
/** Words that introduce a value without naming it ("by Brightwater", "from Acme"). */
const LINKING_WORDS: ReadonlySet<string> = new Set(['by', 'from', 'von', 'par', 'de', 'di', 'door', 'av', 'por', 'of', 'at']);
/** Words after a count that make it a number of reviews ("(183 reviews)", "12 Bewertungen"). */
const REVIEW_WORDS = /^(?:reviews?|ratings?|bewertungen|rezensionen|avis|opiniones|recensioni|beoordelingen)$/i;

/** What the template writes around a slot's value on every page: whole leading and trailing words, then punctuation. */
export function templateAffixes(texts: readonly string[]): Pick<CssExtractorStep, 'prefix' | 'suffix'> {
  // Sentences share words by chance ("The …"); a short value with its template words does not.
  if (new Set(texts).size < 2 || texts.some((text) => text.length > MAX_AFFIXED_TEXT)) return {};
  const split = texts.map((text) => text.split(' '));
  const fewest = Math.min(...split.map((words) => words.length));
  let lead = 0;
  while (lead < fewest - 1 && split.every((words) => words[lead] === split[0][lead])) lead++;
  let trail = 0;
  while (lead + trail < fewest - 1 && split.every((words) => words[words.length - 1 - trail] === split[0][split[0].length - 1 - trail]))
    trail++;
  const cores = split.map((words) => words.slice(lead, words.length - trail).join(' '));
  const leadMarks = commonRun(cores, (core, i) => core[i]);
  const trailMarks = commonRun(cores, (core, i) => core[core.length - 1 - i]);
  const prefix = (lead > 0 ? `${split[0].slice(0, lead).join(' ')} ` : '') + cores[0].slice(0, leadMarks);
  const suffix = cores[0].slice(cores[0].length - trailMarks) + (trail > 0 ? ` ${split[0].slice(split[0].length - trail).join(' ')}` : '');
  return { ...(prefix.trim() !== '' && { prefix }), ...(suffix.trim() !== '' && { suffix }) };
}

/** How many leading (or trailing) punctuation characters every text shares, leaving each something. */
function commonRun(texts: readonly string[], at: (text: string, index: number) => string | undefined): number {
  const shortest = Math.min(...texts.map((text) => text.length));
  let run = 0;
  while (run < shortest - 1) {
    const char = at(texts[0], run);
    if (char === undefined || /[\p{L}\p{N}]/u.test(char) || !texts.every((text) => at(text, run) === char)) break;
    run++;
  }
  return run;
}

/**
 * A field name the template's words give to values that are codes or counts ("SKU KK-3A0F" →
 * `sku`, "(183 reviews)" → `review_count`), if any: before prose, words name nothing.
 */
function nameOfAffixes(affixes: Pick<CssExtractorStep, 'prefix' | 'suffix'>, cores: readonly string[]): string | undefined {
  const words = (text: string | undefined): string[] => (text ?? '').split(/[^\p{L}\p{N}.-]+/u).filter((word) => /\p{L}/u.test(word));
  const counts = cores.every((core) => /^\d{1,9}$/.test(core));
  const after = words(affixes.suffix);
  if (counts && after.length > 0 && REVIEW_WORDS.test(after[0])) return 'review_count';
  const codes = cores.every((core) => /^[\p{L}\p{N}][\p{L}\p{N}._/-]*$/u.test(core) && /\d/.test(core));
  const before = words(affixes.prefix);
  if (!codes || before.length === 0 || before.length > 2 || before.some((word) => LINKING_WORDS.has(word.toLowerCase()))) return undefined;
  const name = nameOfLabel(before.join(' '));
  return name === undefined ? undefined : canonicalFieldName(name, 'text', cores);
}
