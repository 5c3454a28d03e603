import { parseAvailability } from './availability';
import { parseEmail, parsePhone } from './contacts';
import { currencyCodeOf } from './currency';
import { parseDate } from './dates';
import { parseGtin } from './identifiers';
import { parseNumber, parseRating } from './measures';
import { parsePrice } from './price';
import { collapseWhitespace, type NormalisedValue, type ValueContext, type ValueKind } from './value-kind';
import { parseUrl } from './web-addresses';

/**
 * A raw value (a page text, an attribute, a markup property) in the form extraction answers it, or
 * undefined when it is not of that kind:
 * - `price`: decimal string, `.` separator, no grouping (`1.299,00 €` → `1299.00`, `$1,299` → `1299`),
 *   with `extra.currency` (ISO 4217) when the text, or its shared symbol and the page, says it; a
 *   range or "from" price gives its first amount, "Was $20 Now $15" the amount after "now"
 * - `currency`: ISO 4217 code of a symbol or code (`€` → `EUR`, `$` → `USD` unless the page is Canadian…)
 * - `date`: ISO 8601 date or date-time (`March 3, 2024` → `2024-03-03`)
 * - `availability`: a schema.org term (`InStock`, `OutOfStock`, `SoldOut`…)
 * - `gtin`: its digits, check digit verified
 * - `rating`: decimal string (`4.5 out of 5` → `4.5`)
 * - `email`, `phone` (`+` and digits), `url` and `image_url` (absolute, resolved against `pageUrl`)
 * - `number`: the text's one number as a decimal string; `text`: whitespace collapsed, trimmed
 *
 * Lenient where markup is concerned: a bare amount is a price, a bare number up to 100 a rating.
 */
export function normaliseValue(kind: ValueKind, raw: string, context?: ValueContext): NormalisedValue | undefined {
  switch (kind) {
    case 'price': {
      const price = parsePrice(raw, context);
      if (price === undefined) return undefined;
      return price.currency === undefined ? { value: price.amount } : { value: price.amount, extra: { currency: price.currency } };
    }
    case 'currency':
      return wrap(currencyCodeOf(raw, context));
    case 'date':
      return wrap(parseDate(raw, context));
    case 'rating':
      return wrap(parseRating(raw, false, context));
    case 'gtin':
      return wrap(parseGtin(raw));
    case 'email':
      return wrap(parseEmail(raw));
    case 'phone':
      return wrap(parsePhone(raw));
    case 'image_url':
    case 'url':
      return wrap(parseUrl(raw, context));
    case 'availability':
      return wrap(parseAvailability(raw));
    case 'number':
      return wrap(parseNumber(raw, context));
    case 'text':
      return wrap(collapseWhitespace(raw) || undefined);
  }
}

function wrap(value: string | undefined): NormalisedValue | undefined {
  return value === undefined ? undefined : { value };
}

/**
 * Whether two normalised values of `kind` say the same: numbers (prices, ratings) by amount, so that
 * markup's `85.5` is the page's `85.50`; anything else as written.
 */
export function sameValue(kind: ValueKind, a: string | undefined, b: string | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  if (kind === 'price' || kind === 'rating' || kind === 'number') {
    const x = Number(a);
    const y = Number(b);
    return Number.isFinite(x) && Number.isFinite(y) && Math.abs(x - y) < 1e-9;
  }
  return false;
}
