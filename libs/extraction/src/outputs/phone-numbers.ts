import type { ParsedPage } from '../parsed-page';

/**
 * A phone-number candidate in text: an optional `+` or `(`, a digit, then up to 24 digits and
 * separators, ending on a digit that no word character follows. The bounded run keeps the scan
 * linear; `validTextNumber` then decides.
 */
const CANDIDATE = /(?<![\w+\-./])[+(]?\d[\d ().\-/]{5,24}\d(?!\w)/g;
/** Dates written with separators (2024-01-31, 31/01/2024, 31.01.2024). */
const DATE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})$/;
/** A number grouped in thousands (1.234.567, 12 345 678) is a quantity, not a phone number. */
const THOUSANDS = /^\d{1,3}(?:([ .])\d{3})(?:\1\d{3})*$/;
/** Two separators in a row, other than a parenthesis next to a space or dash. */
const DOUBLE_SEPARATOR = /[ .\-/]{2,}|\(\)|\)\(/;
/** Fewest digits a number found in text needs: shorter runs are mostly codes and counts. */
const MIN_TEXT_DIGITS = 8;
/** ITU-T E.164 allows at most 15 digits. */
const MAX_DIGITS = 15;

/**
 * `phone_numbers` output: unique phone numbers of the page, in order of first appearance, from
 * `tel:` links and from the visible text (international `+44 20 7946 0958`, `0044 …`, national
 * `(555) 123-4567`, `030 1234567`, `01 23 45 67 89`). Normalised to `+` and digits for numbers
 * written internationally (`00` becomes `+`) and to digits alone for national ones, since the
 * country is unknown. A national number is left out when an international one found on the page
 * ends with it (the same number written both ways). Text matches need 8 to 15 digits and a
 * separator or `+`, and dates, thousands-grouped quantities and digit runs without separators are
 * not taken for numbers.
 */
export function extractPhoneNumbers(page: ParsedPage): string[] {
  const found: string[] = [];
  const seen = new Set<string>();
  const add = (normalised: string | undefined): void => {
    if (normalised !== undefined && !seen.has(normalised)) {
      seen.add(normalised);
      found.push(normalised);
    }
  };
  for (const element of page.elements('a', 'area')) {
    const href = element.attribs.href?.trim();
    if (href !== undefined && /^tel:/i.test(href)) add(normaliseTelLink(href.slice('tel:'.length)));
  }
  for (const match of page.visibleText.matchAll(CANDIDATE)) {
    if (validTextNumber(match[0])) add(normalise(match[0]));
  }
  const international = found.filter((number) => number.startsWith('+'));
  return found.filter((number) => {
    if (number.startsWith('+')) return true;
    const national = number.replace(/^0+/, '');
    return !international.some((full) => national.length >= 7 && full.endsWith(national));
  });
}

function normaliseTelLink(raw: string): string | undefined {
  let value = raw;
  try {
    value = decodeURIComponent(raw);
  } catch {
    // A malformed escape: take the link as written.
  }
  // RFC 3966 parameters (`;ext=12`, `;phone-context=…`) are not part of the number.
  const number = normalise(value.split(';')[0]);
  const digits = number.replace('+', '').length;
  return digits >= 3 && digits <= MAX_DIGITS ? number : undefined;
}

function normalise(written: string): string {
  const trimmed = written.trim();
  const digits = trimmed.replace(/\D/g, '');
  if (trimmed.startsWith('+')) return `+${digits}`;
  if (digits.startsWith('00') && digits.length > 9) return `+${digits.slice(2)}`;
  return digits;
}

function validTextNumber(candidate: string): boolean {
  const digits = candidate.replace(/\D/g, '').length;
  if (digits < MIN_TEXT_DIGITS || digits > MAX_DIGITS) return false;
  const international = candidate.startsWith('+');
  if (!international && !/[ ().\-/]/.test(candidate)) return false;
  if (DATE.test(candidate) || THOUSANDS.test(candidate) || DOUBLE_SEPARATOR.test(candidate)) return false;
  return balancedParentheses(candidate);
}

/** At most one pair, opened before it closes, holding digits only: `(555)`, `(0)`. */
function balancedParentheses(candidate: string): boolean {
  const open = candidate.indexOf('(');
  const close = candidate.indexOf(')');
  if (open === -1 && close === -1) return true;
  if (open === -1 || close < open) return false;
  if (candidate.indexOf('(', open + 1) !== -1 || candidate.indexOf(')', close + 1) !== -1) return false;
  return /^\d+$/.test(candidate.slice(open + 1, close));
}
