import { extractWithPageType } from '../apply/apply-recipe';
import { HtmlPage } from '../apply/html-page';
import { pathSegments } from '../apply/url-patterns';
import { sameValue } from '../values';
import { RECIPE_FORMAT, type PageType, type Recipe, type RecipeField } from '../recipe';
import { draftFields, type FieldDraft } from './draft-fields';
import { isPlainName, snakeName, uniqueName } from './field-names';
import { groupPages, isWordSegment, stableTokensOf, urlPatternsOf } from './group-pages';
import { keepStableNames } from './stable-names';

/** What `learnRecipe` learns from. */
export interface LearnRecipeInput {
  /** The domain prepared, e.g. `shop.example`. */
  readonly domain: string;
  /** Sample pages of the domain (decoded HTML, final URL); pages whose URL does not parse are skipped. */
  readonly pages: ReadonlyArray<{ readonly url: string; readonly html: string }>;
  /** The domain's current recipe, whose field names are kept. */
  readonly previous?: Recipe;
  /** The new recipe's version. */
  readonly version: number;
}

/** What was learned, for the preparation's status. */
export interface LearnReport {
  readonly pages_analysed: number;
  readonly page_types: ReadonlyArray<{ readonly name: string; readonly pages: number; readonly fields: string[] }>;
}

/** Most structure tokens kept in a page type's signature. */
const MAX_SIGNATURE = 60;
/** Share of a group's pages a token must be on to be part of its signature. */
const SIGNATURE_PRESENCE = 0.8;
/** Every `HOLD_OUT_EVERY`-th page of a group is held out, when the group has at least that many. */
const HOLD_OUT_EVERY = 3;
/** Share of checked held-out pages on which a field may miss its value and still be kept. */
const MAX_MISS_SHARE = 1 / 3;

/**
 * Learns a domain's recipe from sample pages: pages are grouped by template (structure and URL),
 * and for each group the fields are drafted on two thirds of its pages and kept only when they
 * hold on the third held out; a group of one or two pages keeps only fields named by embedded
 * data or labels. Names of `previous` are kept (see `keepStableNames`). Deterministic: the same
 * input gives the same recipe.
 */
export function learnRecipe(input: LearnRecipeInput): { recipe: Recipe; report: LearnReport } {
  const pages = parsePages(input.pages);
  const groups = groupPages(pages);
  const learned: PageType[] = [];
  const counts: number[] = [];
  const taken = new Set<string>();
  for (const group of groups) {
    const pageType = learnPageType(group, pages, taken);
    if (pageType === undefined) continue;
    taken.add(pageType.name);
    learned.push(pageType);
    counts.push(group.length);
  }
  const pageTypes = keepStableNames(learned, input.previous);
  const recipe: Recipe = { format: RECIPE_FORMAT, domain: input.domain, version: input.version, page_types: pageTypes };
  const report: LearnReport = {
    pages_analysed: pages.length,
    page_types: pageTypes.map((pageType, index) => ({
      name: pageType.name,
      pages: counts[index] ?? 0,
      fields: pageType.fields.filter((field) => field.status === 'active').map((field) => field.name),
    })),
  };
  return { recipe, report };
}

/** Pages sorted by URL (the order decides ties), one per URL, parsed once. */
function parsePages(input: LearnRecipeInput['pages']): HtmlPage[] {
  const byUrl = new Map<string, string>();
  for (const { url, html } of input) {
    const parsed = URL.parse(url);
    if (parsed !== null && !byUrl.has(parsed.href)) byUrl.set(parsed.href, html);
  }
  return [...byUrl.keys()].sort().map((url) => HtmlPage.parse(byUrl.get(url) ?? '', url));
}

function learnPageType(group: readonly HtmlPage[], allPages: readonly HtmlPage[], taken: ReadonlySet<string>): PageType | undefined {
  const heldOut = group.length >= HOLD_OUT_EVERY ? group.filter((_, index) => index % HOLD_OUT_EVERY === HOLD_OUT_EVERY - 1) : [];
  const training = group.filter((page) => !heldOut.includes(page));
  const drafts = draftFields(training).filter((draft) => (group.length >= HOLD_OUT_EVERY ? holdsOn(draft, heldOut) : draft.wellAnchored));
  if (drafts.length === 0) return undefined;
  const fields: RecipeField[] = drafts.map((draft) => draft.field);
  const name = uniqueName(pageTypeName(group, fields), taken);
  return { name, url_patterns: urlPatternsOf(group), signature: signatureOf(group, allPages), fields };
}

/**
 * Whether a drafted field reads held-out pages right: where its value can be found another way,
 * it must never read a different value, and may miss it on at most a third of the pages. A field
 * with nothing to check against is kept when named by embedded data or a label.
 */
function holdsOn(draft: FieldDraft, heldOut: readonly HtmlPage[]): boolean {
  let checked = 0;
  let missed = 0;
  const pageType: PageType = { name: 'check', url_patterns: [], signature: [], fields: [draft.field] };
  for (const page of heldOut) {
    const expected = draft.reference(page);
    if (expected === undefined) continue;
    checked++;
    const found = extractWithPageType(pageType, page)[draft.field.name];
    if (draft.field.type === 'list') {
      if (!Array.isArray(found)) missed++;
      continue;
    }
    if (found === undefined) missed++;
    else if (!sameValue(draft.field.kind, typeof found === 'string' ? found : undefined, expected)) return false;
  }
  if (checked === 0) return draft.wellAnchored;
  return missed <= checked * MAX_MISS_SHARE;
}

/**
 * `product` or `article` when embedded data says so, `listing` for a page type whose content is a
 * list, `product` for one with a price, else the first word of its URLs' path when it is a plain
 * word, else `page`.
 */
function pageTypeName(group: readonly HtmlPage[], fields: readonly RecipeField[]): string {
  const types = new Set(group.flatMap((page) => page.embedded.map((fact) => fact.rootType)));
  if (types.has('Product') || types.has('ProductGroup')) return 'product';
  if (fields.some((field) => field.meaning.includes('article:body'))) return 'article';
  if (['Article', 'NewsArticle', 'BlogPosting', 'Recipe', 'Report'].some((type) => types.has(type))) return 'article';
  if (fields.some((field) => field.type === 'list') && fields.filter((field) => field.type === 'value').length <= 2) return 'listing';
  // A record with a price of its own is a product, whatever its URLs say (`/p/…`, `/dp/…`).
  if (fields.some((field) => field.type === 'value' && field.kind === 'price' && field.status === 'active')) return 'product';
  const first = pathSegments(group[0].url)[0];
  const fromUrl =
    first !== undefined && isWordSegment(first) && group.every((page) => pathSegments(page.url)[0] === first)
      ? snakeName(first)
      : undefined;
  return fromUrl !== undefined && isPlainName(fromUrl) ? fromUrl : 'page';
}

/**
 * The tokens on nearly every page of the group, those rarest on other pages first (they tell the
 * type apart), then alphabetically.
 */
function signatureOf(group: readonly HtmlPage[], allPages: readonly HtmlPage[]): string[] {
  const inGroup = new Map<string, number>();
  for (const page of group) for (const token of stableTokensOf(page)) inGroup.set(token, (inGroup.get(token) ?? 0) + 1);
  const others = allPages.filter((page) => !group.includes(page));
  const common = [...inGroup].filter(([, count]) => count >= group.length * SIGNATURE_PRESENCE).map(([token]) => token);
  const elsewhere = (token: string): number => others.filter((page) => page.structureTokens.has(token)).length;
  const scored = common.map((token) => ({ token, elsewhere: elsewhere(token) }));
  scored.sort((a, b) => a.elsewhere - b.elsewhere || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
  return scored.slice(0, MAX_SIGNATURE).map(({ token }) => token);
}
