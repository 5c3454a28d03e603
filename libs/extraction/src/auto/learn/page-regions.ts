import type { Element } from 'domhandler';
import type { HtmlPage } from '../apply/html-page';
import { NON_VALUE_ELEMENTS } from '@trawl/extraction/dom';
import { childElements, descendants, isHiddenByMarkup, ownText, parentElement } from '../apply/page-text';
import { stableClasses, stableId } from '../apply/structure';
import { pathSegments } from '../apply/url-patterns';

/**
 * How one sample page divides into regions the learner treats differently: site chrome and
 * advertising (never a field), repeated regions (lists of records), and text slots keyed by their
 * place in the layout so that the same slot can be found on every page of a template.
 */

/** Elements whose content is site chrome, never the page's record. */
const CHROME_ELEMENTS: ReadonlySet<string> = new Set(['nav', 'footer', 'aside', 'dialog', 'menu']);
/**
 * Class/id words of blocks that change from page to page but are not the page's record: ads,
 * related or recommended products, carousels, social and cookie widgets, menus, breadcrumbs (often
 * just `crumbs`).
 */
const NOT_RECORD_WORDS =
  /(?:^|[-_\s])(?:ads?|adv|advert\w*|adslot|dfp|gpt|sponsor\w*|promo\w*|banner\w*|related|recommend\w*|recs|similar|also|upsell|cross-?sells?|carousel|slider|newsletter|cookie\w*|consent|gdpr|(?:bread)?crumbs?|menu|megamenu|navbar|nav|navigation|footer|sidebar|social|share|sharing|modal|popup|overlay|toast|recently|viewed|history|bought|trending|bestsellers?)(?:$|[-_\s])/i;

/** A text slot: an element with text of its own, keyed by where it sits in the layout. */
export interface TextSlot {
  readonly key: string;
  readonly element: Element;
  readonly text: string;
}

/** Siblings that repeat one shape (`li.product` ×24): the items of a list. */
export interface RepeatedRegion {
  /** Layout path of the container plus the items' shape; the same on every page of a template. */
  readonly key: string;
  readonly container: Element;
  readonly itemStep: string;
  readonly items: readonly Element[];
  /** Whether most items hold a link: lists of other pages (results, related products, menus). */
  readonly linked: boolean;
  /** Whether most items link to pages shaped like this one: other records (related, also bought). */
  readonly related: boolean;
}

/** What the learner needs of one page's layout. */
export interface PageRegions {
  readonly slots: readonly TextSlot[];
  readonly regions: readonly RepeatedRegion[];
  /** Elements inside chrome, ads, a repeated region or a tile linking to another record. */
  readonly outsideRecord: ReadonlySet<Element>;
}

/** Longest text beyond its link's a tile around a link to another record holds (a price, a badge). */
const MAX_TILE_EXTRA_TEXT = 40;

/** Longest text a slot holds, in characters: longer blocks are bodies, found through embedded data. */
const MAX_SLOT_TEXT = 1_000;
/** Fewest siblings of one shape that make a list. */
const MIN_LIST_ITEMS = 3;

/** The step of a layout path for `element`: its name and stable classes, sorted. */
export function layoutStep(element: Element): string {
  const classes = stableClasses(element).sort();
  return classes.length === 0 ? element.name : `${element.name}.${classes.join('.')}`;
}

/** Whether the element's own markup marks chrome or a block that is not the record. */
export function isNotRecord(element: Element): boolean {
  if (CHROME_ELEMENTS.has(element.name)) return true;
  if (element.attribs.role === 'navigation' || element.attribs.role === 'banner' || element.attribs.role === 'contentinfo') return true;
  // A breadcrumb said so for screen readers (`aria-label="Breadcrumb"`) or for schema.org, whatever its classes.
  if (/breadcrumb/i.test(element.attribs['aria-label'] ?? '') || /BreadcrumbList/.test(element.attribs.itemtype ?? '')) return true;
  const words = `${stableId(element) ?? ''} ${element.attribs.class ?? ''}`;
  return NOT_RECORD_WORDS.test(words);
}

const regionsCache = new WeakMap<HtmlPage, PageRegions>();

/** The page's regions (see `pageRegions`), computed once per page. */
export function regionsOf(page: HtmlPage): PageRegions {
  let regions = regionsCache.get(page);
  if (regions === undefined) {
    regions = pageRegions(page);
    regionsCache.set(page, regions);
  }
  return regions;
}

/** Divides a page (see `PageRegions`). */
export function pageRegions(page: HtmlPage): PageRegions {
  const body = page.elements.find((element) => element.name === 'body');
  const slots: TextSlot[] = [];
  const regions: RepeatedRegion[] = [];
  const outsideRecord = new Set<Element>();
  if (body === undefined) return { slots, regions, outsideRecord };

  const shape = recordShape(page.url);
  const occurrences = new Map<string, number>();
  const regionKeys = new Map<string, number>();
  // Depth-first with each element's layout path and whether it is outside the record.
  const stack: Array<{ element: Element; path: string; outside: boolean; inList: boolean }> = [
    { element: body, path: 'body', outside: false, inList: false },
  ];
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { element, path } = entry;
    if (NON_VALUE_ELEMENTS.has(element.name) || isHiddenByMarkup(element)) continue;
    const outside = entry.outside || isNotRecord(element);
    if (outside || entry.inList) outsideRecord.add(element);
    if (!outside && !entry.inList) {
      const text = ownText(element) === '' ? '' : page.text(element);
      if (text !== '' && text.length <= MAX_SLOT_TEXT) {
        const occurrence = occurrences.get(path) ?? 0;
        occurrences.set(path, occurrence + 1);
        slots.push({ key: `${path}|${occurrence}`, element, text });
      }
    }
    const children = childElements(element);
    const itemSteps = repeatedSteps(children);
    if (itemSteps.size > 0 && !entry.inList) {
      for (const step of itemSteps) {
        const items = children.filter((child) => layoutStep(child) === step);
        const baseKey = `${path}>${step}`;
        const seen = regionKeys.get(baseKey) ?? 0;
        regionKeys.set(baseKey, seen + 1);
        const linked = items.filter((item) => item.name === 'a' || hasLink(item)).length >= items.length * 0.6;
        const related = shape !== undefined && items.filter((item) => linksToShape(page, item, shape)).length >= items.length * 0.6;
        if (!outside) regions.push({ key: `${baseKey}|${seen}`, container: element, itemStep: step, items, linked, related });
      }
    }
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      const step = layoutStep(child);
      stack.push({ element: child, path: `${path}>${step}`, outside, inList: entry.inList || itemSteps.has(step) });
    }
  }
  for (const tile of otherRecordTiles(page, body)) for (const element of [tile, ...descendants(tile)]) outsideRecord.add(element);
  const tiles = new Set(outsideRecord);
  return { slots: slots.filter((slot) => !tiles.has(slot.element)), regions, outsideRecord };
}

/**
 * Tiles of other records: a link to another page shaped like this one (`/p/other-shoe` on
 * `/p/this-shoe`, another post on a post) with what stands around it alone (its price, its
 * thumbnail) is a related, recently viewed or sponsored item, whether or not it repeats.
 */
function otherRecordTiles(page: HtmlPage, body: Element): Element[] {
  const shape = recordShape(page.url);
  if (shape === undefined) return [];
  const tiles: Element[] = [];
  for (const link of descendants(body)) {
    if (link.name !== 'a' || link.attribs.href === undefined) continue;
    const target = linkTarget(page, link);
    if (target === undefined || target.pathname === page.url.pathname || recordShape(target) !== shape) continue;
    const linkText = page.text(link).length;
    let tile = link;
    for (let parent = parentElement(tile); parent !== undefined && parent !== body; parent = parentElement(parent)) {
      if (page.text(parent).length > linkText * 3 + MAX_TILE_EXTRA_TEXT) break;
      const inside = descendants(parent);
      if (inside.some((element) => element.name === 'h1')) break;
      const targets = new Set(inside.filter((element) => element.name === 'a').map((element) => linkTarget(page, element)?.pathname));
      if (targets.size > 1) break;
      tile = parent;
    }
    tiles.push(tile);
  }
  return tiles;
}

function linksToShape(page: HtmlPage, item: Element, shape: string): boolean {
  return [item, ...descendants(item)].some((element) => {
    if (element.name !== 'a') return false;
    const target = linkTarget(page, element);
    return target !== undefined && target.pathname !== page.url.pathname && recordShape(target) === shape;
  });
}

function linkTarget(page: HtmlPage, link: Element): URL | undefined {
  const href = link.attribs.href === undefined ? undefined : page.resolve(link.attribs.href);
  const target = href === undefined ? undefined : URL.parse(href);
  return target === null || target === undefined || target.host !== page.url.host ? undefined : target;
}

/**
 * The shape of a record page's URL (depth, and the first segment when it is a word): undefined for
 * shallow pages whose links could be anything (`/`, `/about`).
 */
function recordShape(url: URL): string | undefined {
  const segments = pathSegments(url);
  const first = segments[0] ?? '';
  const word = /^[A-Za-z]{1,20}$/.test(first);
  if (segments.length < 2) return undefined;
  return `${segments.length}:${word ? first.toLowerCase() : '*'}`;
}

/** Shapes of `children` repeated at least `MIN_LIST_ITEMS` times with text that differs. */
function repeatedSteps(children: readonly Element[]): Set<string> {
  const byStep = new Map<string, Element[]>();
  for (const child of children) {
    if (NON_VALUE_ELEMENTS.has(child.name) || child.name === 'br' || child.name === 'option') continue;
    const step = layoutStep(child);
    const group = byStep.get(step);
    if (group === undefined) byStep.set(step, [child]);
    else group.push(child);
  }
  const steps = new Set<string>();
  for (const [step, group] of byStep) {
    // Table rows of a spec table are label rows, read as labels, not a list of records.
    if (group.length < MIN_LIST_ITEMS || group[0].name === 'tr' || group[0].name === 'dt' || group[0].name === 'dd') continue;
    // Records have parts (a name and a price, a link and an image); runs of paragraphs do not.
    if (group.filter(isRecordLike).length >= MIN_LIST_ITEMS) steps.add(step);
  }
  return steps;
}

/** Whether the element holds at least two parts: texts of their own, images. */
function isRecordLike(element: Element): boolean {
  let parts = 0;
  const stack = [element];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.name === 'img' || ownText(node) !== '') parts++;
    if (parts >= 2) return true;
    stack.push(...childElements(node));
  }
  return false;
}

function hasLink(element: Element): boolean {
  const stack = [...childElements(element)];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.name === 'a' && node.attribs.href !== undefined) return true;
    stack.push(...childElements(node));
  }
  return false;
}
