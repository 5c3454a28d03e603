import type { Element } from 'domhandler';
import { stableClasses, stableId } from '../apply/structure';
import { fieldNameOfLabel } from '../vocabulary';

/** Longest field name, in characters. */
const MAX_NAME_LENGTH = 40;

/**
 * Words of class names and ids that say how a thing looks or where it sits, not what it is:
 * `product-price-value` names a price, `col-md-6 text-bold` names nothing.
 */
const LAYOUT_WORDS: ReadonlySet<string> = new Set(
  (
    'a b c d e i l m p r s t u x y ' +
    'product products item items detail details js value val text txt field wrapper wrap container ' +
    'box info main page col cols row rows inner outer content contents block section el elem element component ' +
    'module widget data left right top bottom center clearfix clear pull float hidden visible active selected ' +
    'lg md sm xs xl xxl flex grid mb mt ml mr pt pb pl pr px py mx my fw fs bold small large big medium ' +
    'first last odd even display show hide is has no not new old current default primary secondary ' +
    'title-wrapper holder area part panel card cell list group entry view layout desktop mobile tablet ' +
    'h1 h2 h3 h4 h5 h6 span div img image-wrapper link links btn button icon ico fa svg copy font color ' +
    'light dark white black grey gray red green blue pdp plp sku-wrapper summary single full'
  ).split(' '),
);

/**
 * First words of utility-first class names (Tailwind, Bootstrap, Tachyons): the whole class says how
 * a thing looks (`text-3xl`, `items-baseline`, `gap-2`, `fw-bold`), whatever follows the prefix.
 */
const UTILITY_PREFIXES: ReadonlySet<string> = new Set(
  (
    'text font leading tracking gap items justify content self place bg border rounded shadow ring outline ' +
    'p px py pt pb pl pr ps pe m mx my mt mb ml mr ms me w h min max size z order inset top left right bottom ' +
    'flex grid col row span basis grow shrink space divide overflow whitespace break decoration underline ' +
    'uppercase lowercase capitalize italic truncate align d fw fs lh opacity transition duration ease cursor ' +
    'hover focus active group peer sm md lg xl xxl dark aspect object fill stroke sr line list tabular antialiased ' +
    'visible invisible hidden block inline table relative absolute fixed sticky static float clear container mw mh vh vw'
  ).split(' '),
);

/** Words that make a class name a field's even after a utility prefix (`list-price`, `text-price`). */
const FIELD_WORDS: ReadonlySet<string> = new Set(
  'price prices title name description brand sku rating reviews review availability stock date author summary code colour color'.split(' '),
);

/** Words a name may hold that are not spelled like words: codes and abbreviations of the trade. */
const ABBREVIATIONS: ReadonlySet<string> = new Set(
  'sku gtin ean upc isbn mpn asin url id qty msrp rrp vat pdf sms faq cvc mm cm kg'.split(' '),
);

/** Words that look like words but only size or place a thing, in utility-first and framework classes. */
const NON_NAMES: ReadonlySet<string> = new Set(
  'base baseline semibold extrabold medium normal thin light heavy black auto full screen none xs sm md lg xl xxl lead'.split(' '),
);

/**
 * Whether a snake_case name reads as plain words: each word letters only, at least two of them and
 * a vowel (`price_sale`, `review_count`), or a code of the trade (`sku`, `gtin`).
 */
export function isPlainName(name: string): boolean {
  return name
    .split('_')
    .every((word) => ABBREVIATIONS.has(word) || (/^[a-z]{2,}$/.test(word) && /[aeiouy]/.test(word) && !NON_NAMES.has(word)));
}

/**
 * A name in lower snake_case, ASCII, from any text (`Item Code` → `item_code`, `Größe` →
 * `grosse`); undefined when nothing of it is left or it does not start with a letter.
 */
export function snakeName(text: string): string | undefined {
  const name = text
    .normalize('NFKD')
    .replace(/ß/g, 'ss')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, MAX_NAME_LENGTH)
    .replace(/_+$/, '');
  return /^[a-z]/.test(name) ? name : undefined;
}

/** A field name for a label (`Item code:` → the vocabulary's name, else `item_code`). */
export function nameOfLabel(label: string): string | undefined {
  return fieldNameOfLabel(label) ?? snakeName(label);
}

/**
 * A field name from an element's own markup: its `itemprop`, a `data-*` name attribute, or the
 * meaningful words of its id and class names (`product__price--sale` → `price_sale`), looked up in
 * the vocabulary first. Undefined when the markup says nothing.
 */
export function nameOfMarkup(element: Element): string | undefined {
  const itemprop = element.attribs.itemprop?.trim().split(/\s+/)[0];
  if (itemprop) return nameOfWords(splitWords(itemprop));
  for (const attribute of ['data-field', 'data-name', 'data-testid', 'data-test', 'data-qa', 'data-automation-id']) {
    const value = element.attribs[attribute];
    if (value !== undefined) {
      const name = nameOfWords(meaningfulWords(value));
      if (name !== undefined) return name;
    }
  }
  const tokens = [stableId(element), ...stableClasses(element)].filter((token): token is string => token !== undefined);
  for (const token of tokens) {
    const name = nameOfWords(meaningfulWords(token));
    if (name !== undefined) return name;
  }
  return undefined;
}

/** A name from a class's or attribute's words, or undefined when they do not read as plain words. */
function nameOfWords(words: string[]): string | undefined {
  if (words.length === 0) return undefined;
  const phrase = words.join(' ');
  const name = fieldNameOfLabel(phrase) ?? snakeName(phrase);
  return name !== undefined && isPlainName(name) ? name : undefined;
}

function splitWords(token: string): string[] {
  return token
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((word) => word !== '');
}

/** Words of a class name that say what the thing is, or none when it only says how it looks. */
function meaningfulWords(token: string): string[] {
  // `hover:underline`, `md:text-lg`: a variant of a utility class.
  if (token.includes(':')) return [];
  const all = splitWords(token);
  if (all.length > 0 && UTILITY_PREFIXES.has(all[0]) && !all.slice(1).some((word) => FIELD_WORDS.has(word))) return [];
  const words = all.filter((word) => !LAYOUT_WORDS.has(word) && !/^\d+$/.test(word));
  // BEM modifiers (`price--old`) and utility prefixes (`u-`, `c-`) keep only their meaningful part.
  return words.length > 3 ? [] : words;
}

/** `name`, or `name_2`, `name_3`… — the first not in `taken`. */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) if (!taken.has(`${name}_${n}`)) return `${name}_${n}`;
}
