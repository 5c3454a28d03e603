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

function nameOfWords(words: string[]): string | undefined {
  if (words.length === 0) return undefined;
  const phrase = words.join(' ');
  return fieldNameOfLabel(phrase) ?? snakeName(phrase);
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
  const words = splitWords(token).filter((word) => !LAYOUT_WORDS.has(word) && !/^\d+$/.test(word));
  // BEM modifiers (`price--old`) and utility prefixes (`u-`, `c-`) keep only their meaningful part.
  return words.length > 3 ? [] : words;
}

/** `name`, or `name_2`, `name_3`… — the first not in `taken`. */
export function uniqueName(name: string, taken: ReadonlySet<string>): string {
  if (!taken.has(name)) return name;
  for (let n = 2; ; n++) if (!taken.has(`${name}_${n}`)) return `${name}_${n}`;
}
