import { parseAvailability } from './availability';
import { parseEmail, parsePhone } from './contacts';
import { currencyCodeOf } from './currency';
import { parseDate } from './dates';
import { parseGtin } from './identifiers';
import { isOnlyNumber, parseRating } from './measures';
import { readPrice } from './price';
import { collapseWhitespace, type ValueKind } from './value-kind';
import { hasImageExtension, looksLikeUrl } from './web-addresses';

/** Longer texts are prose: only `text`. Slots holding a value are short. */
const MAX_VALUE_TEXT = 200;
/** Availability words in a longer text are part of a sentence, not a stock status. */
const MAX_AVAILABILITY_TEXT = 60;
/** A bare amount with two fraction digits (`19.99`) is likely a price whose currency is shown apart. */
const CENTS = /[.,]\d{2}$/;

/**
 * The kinds a page text could be, most specific first; `['text']` when it is nothing more specific,
 * `[]` when empty. Stricter than `normaliseValue`, which reads markup: here a price needs a currency
 * mark next to its amount (`€19,99` → `['price']`) or two fraction digits (`19.99` →
 * `['price', 'number']`), so `2024` is only a number; a rating must be written as one (`4.5 out of
 * 5`); texts that say much more than the value are not that kind (`Free shipping over $50`).
 * Examples: `2024-03-01` → `['date']`, `4006381333931` → `['gtin', 'number']`,
 * `Call 555-1234` → `['phone']`, `https://x.test/a.jpg` → `['image_url', 'url']`.
 *
 * Cheap checks come first and exit early: it runs on every text slot of every training page.
 */
export function detectKinds(raw: string): ValueKind[] {
  const text = collapseWhitespace(raw);
  if (text === '') return [];
  if (text.length > MAX_VALUE_TEXT) return ['text'];
  if (text.length <= MAX_AVAILABILITY_TEXT && parseAvailability(text, MAX_AVAILABILITY_TEXT) !== undefined) {
    return ['availability'];
  }
  if (looksLikeUrl(text)) return hasImageExtension(text) ? ['image_url', 'url'] : ['url'];
  if (text.includes('@') && parseEmail(text) !== undefined) return ['email'];
  if (!/\d/.test(text)) return currencyCodeOf(text) === undefined ? ['text'] : ['currency'];

  const kinds: ValueKind[] = [];
  if (parseDate(text, undefined, true) !== undefined) kinds.push('date');
  if (kinds.length === 0 && /^[\d -]{8,20}$/.test(text) && parseGtin(text) !== undefined) kinds.push('gtin');
  if (kinds.length === 0) {
    const price = readPrice(text, undefined, true);
    if (price !== undefined && (price.marked || CENTS.test(text))) kinds.push('price');
    else if (parseRating(text, true) !== undefined) kinds.push('rating');
    else if (parsePhone(text) !== undefined) kinds.push('phone');
  }
  if (isOnlyNumber(text)) kinds.push('number');
  return kinds.length === 0 ? ['text'] : kinds;
}
