import { findAmounts, firstAmount } from './amounts';
import { collapseWhitespace, type ValueContext } from './value-kind';

/** `4.5 out of 5`, `4,5/5`, `Rated 4.5 of 5 stars`, `4.5 von 5 Sternen`, `4/5`. */
const RATING_ON_SCALE =
  /^(?:rated|rating|note|bewertung|valoración|valutazione)?\s*:?\s*\d+(?:[.,]\d+)?\s*(?:out of|of|\/|von|sur|de|su|van|av|z|из)\s*\d+(?:[.,]\d+)?\s*(?:stars?|sterne?n?|étoiles?|estrellas?|stelle|sterren|stjärnor|gwiazdek|звезд\p{L}*)?\.?$/iu;
/** `4.5 stars`, `4.5★`. */
const RATING_IN_STARS = /^\d(?:[.,]\d{1,2})?\s*(?:stars?|sterne?n?|étoiles?|estrellas?|stelle|★)$/iu;
/** Between the rating and its scale. */
const SCALE_WORD = /^\s*(?:out of|of|\/|von|sur|de|su|van|av|z|из)\s*$/i;
/** Highest rating without a stated scale: ratings out of 100 exist, review counts look alike above. */
const MAX_UNSCALED_RATING = 100;

/**
 * The rating a text states, as a decimal string without trailing zeros (`4.5 out of 5` → `4.5`,
 * `4,50` → `4.5`), or undefined when it is no rating: none of its amounts, or above its scale.
 *
 * @param strict only texts written as ratings (`4.5 out of 5`, `4.5 stars`), for telling what a
 *   page slot holds; off, a bare number up to 100 is a rating too (markup's `ratingValue`)
 * @param context the page's decimal mark, for a number that leaves it open (see `findAmounts`)
 */
export function parseRating(raw: string, strict = false, context?: ValueContext): string | undefined {
  const text = collapseWhitespace(raw);
  if (text === '' || text.length > 60) return undefined;
  if (strict && !RATING_ON_SCALE.test(text) && !RATING_IN_STARS.test(text)) return undefined;
  const amounts = findAmounts(text, context);
  if (amounts.length === 0) return undefined;
  const value = Number(amounts[0].value);
  const scale = amounts[1] && SCALE_WORD.test(text.slice(amounts[0].end, amounts[1].start)) ? Number(amounts[1].value) : undefined;
  if (!Number.isFinite(value) || value < 0 || value > (scale ?? MAX_UNSCALED_RATING)) return undefined;
  return String(value);
}

/**
 * The one number a text states (`1,234 reviews` → `1234`, `-2,5` → `-2.5`), digits as written
 * without grouping, or undefined when it states none or several (`4.5 out of 5`).
 *
 * @param context the page's decimal mark, for a number that leaves it open (see `findAmounts`)
 */
export function parseNumber(raw: string, context?: ValueContext): string | undefined {
  const text = collapseWhitespace(raw);
  const amounts = findAmounts(text, context);
  if (amounts.length !== 1) return undefined;
  const negative = /[-−]\s?$/.test(text.slice(0, amounts[0].start)) && !/\d/.test(text[amounts[0].start - 2] ?? '');
  return negative ? `-${amounts[0].value}` : amounts[0].value;
}

/** Whether the whole text is one number (`1,299`, `-3`, `19.99`): a slot showing only a number. */
export function isOnlyNumber(raw: string): boolean {
  const text = collapseWhitespace(raw).replace(/^[-−+]/, '');
  const amount = firstAmount(text);
  return amount !== undefined && amount.start === 0 && amount.end === text.length;
}
