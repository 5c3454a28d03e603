import { findAmounts, type Amount } from './amounts';
import { findCurrencyMarks, type CurrencyMark } from './currency';
import { collapseWhitespace, type ValueContext } from './value-kind';

/** A price read from a text. */
export interface Price {
  /** Decimal string, `.` separator, no grouping, fraction digits as written: `1299.00`. */
  amount: string;
  /** ISO 4217 code, when the text says it (or its shared symbol and the page's country do). */
  currency?: string;
}

/** Words that may stand next to a price without making the text something else. */
const PRICE_WORDS =
  /(?<!\p{L})(?:price|prices|preis|prix|precio|prezzo|prijs|pris|cena|preço|from|ab|dès|des|desde|da|a partir de|à partir de|vanaf|fra|från|od|now|only|sale|nur|noch|jetzt|maintenant|ahora|ora|was|save|rrp|msrp|uvp|our|list|regular|special|offer|total|subtotal|each|ea|per|incl|inkl|excl|exkl|vat|tax|mwst|ttc|ht|iva|statt|avant|antes|ahorra|reduced|starting|at)(?!\p{L})\.?/giu;
/** Words after which the price that follows is the one charged now (a strike-through comes before). */
const NOW_WORDS = /\b(?:now|sale|jetzt|nur noch|maintenant|ahora|ora|nu|special price|our price|offer price|deal)\b/i;
/** Longest text read as a price at all: a description that mentions an amount is not one. */
const MAX_PRICE_TEXT = 200;
/** Letters a price text may hold beyond currencies and price words and still read as a price. */
const MAX_STRAY_LETTERS = 12;

/**
 * The price a text states, or undefined. The amount next to a currency mark is the price: the first
 * one, or the first after "now"/"sale"/"jetzt" (`Was $20 Now $15` → 15); of a range or "from"
 * price the first amount. A text without a currency mark is a price only when it is nothing but an
 * amount, perhaps with words like "Price:" or "ab" (`19,99`, `Preis: 19,99`): `Call 555-1234` and
 * `Item 12345` are not prices. Percentages are not prices.
 *
 * @param strict also refuse texts that say more than a price (`Free shipping over $50`), for
 *   telling what a page slot holds; off, any currency-marked amount in the text is taken
 */
export function parsePrice(raw: string, context?: ValueContext, strict = false): Price | undefined {
  const reading = readPrice(raw, context, strict);
  return reading && withCurrency(reading.amount, reading.currency);
}

/** A price as read, and whether a currency mark stood next to its amount. */
export interface PriceReading extends Price {
  marked: boolean;
}

/** `parsePrice`, telling also whether the amount had a currency mark (`€19,99`) or stood bare (`19,99`). */
export function readPrice(raw: string, context?: ValueContext, strict = false): PriceReading | undefined {
  const text = collapseWhitespace(raw);
  if (text === '' || text.length > MAX_PRICE_TEXT) return undefined;
  const amounts = findAmounts(text, context).filter((amount) => text[amount.end] !== '%');
  if (amounts.length === 0) return undefined;
  const marks = findCurrencyMarks(text, context);
  if (strict && strayLetters(text, amounts, marks) > MAX_STRAY_LETTERS) return undefined;
  const priced = amounts
    .map((amount) => ({ amount, mark: adjacentMark(text, amount, marks) }))
    .filter((entry): entry is { amount: Amount; mark: CurrencyMark } => entry.mark !== undefined);
  if (priced.length > 0) {
    const now = NOW_WORDS.exec(text);
    const chosen = (now && priced.find((entry) => entry.amount.start > now.index)) ?? priced[0];
    const currency = chosen.mark.code ?? marks.find((mark) => mark.code)?.code;
    return { ...withCurrency(chosen.amount.value, currency), marked: true };
  }
  if (!isBareAmount(text, amounts[0], marks)) return undefined;
  return { ...withCurrency(amounts[0].value, marks.find((mark) => mark.code)?.code), marked: false };
}

function withCurrency(amount: string, currency: string | undefined): Price {
  return currency === undefined ? { amount } : { amount, currency };
}

/** The currency mark written right before or after an amount (`€ 19`, `19,- €`, `Rs. 99`). */
export function adjacentMark(text: string, amount: Amount, marks: CurrencyMark[]): CurrencyMark | undefined {
  for (const mark of marks) {
    if (mark.end <= amount.start && /^[\s.:]{0,3}$/.test(text.slice(mark.end, amount.start))) return mark;
    if (mark.start >= amount.end && /^[\s,.\-–—]{0,4}$/.test(text.slice(amount.end, mark.start))) return mark;
  }
  return undefined;
}

/**
 * Whether the text is one amount and nothing else a price could not say: price words before it,
 * a dash after it (`19,-`), a currency code elsewhere (`Price (EUR): 19.99`).
 */
function isBareAmount(text: string, amount: Amount, marks: CurrencyMark[]): boolean {
  let before = text.slice(0, amount.start);
  for (const mark of marks) if (mark.end <= amount.start) before = before.replace(text.slice(mark.start, mark.end), '');
  before = before.replace(PRICE_WORDS, '');
  const after = text.slice(amount.end);
  return /^[\s:()]*$/.test(before) && /^\s*(?:[,.]\s*[-–—]+)?\s*\*?$/.test(after);
}

/** Letters in the text outside amounts, currency marks and price words. */
function strayLetters(text: string, amounts: Amount[], marks: CurrencyMark[]): number {
  let rest = text;
  for (const span of [...marks, ...amounts].sort((a, b) => b.start - a.start)) {
    rest = rest.slice(0, span.start) + ' ' + rest.slice(span.end);
  }
  return rest.replace(PRICE_WORDS, ' ').replace(/[^\p{L}]/gu, '').length;
}
