import { collapseWhitespace } from './value-kind';

/** GTIN lengths: GTIN-8 (EAN-8), GTIN-12 (UPC-A), GTIN-13 (EAN-13, ISBN-13), GTIN-14. */
const GTIN_LENGTHS: ReadonlySet<number> = new Set([8, 12, 13, 14]);
/** A label shops put before the number: `EAN: …`, `UPC #`, `GTIN-13`. */
const GTIN_LABEL = /^(?:gtin|ean|upc|isbn|barcode|jan)(?:-?(?:8|12|13|14))?\s*[:#]?\s*/i;

/**
 * The GTIN a text states, as its digits (`4006381333931`), or undefined: 8, 12, 13 or 14 digits,
 * perhaps grouped by spaces or hyphens and after a label (`EAN: 4 006381 333931`), whose GS1 check
 * digit is right. The length is kept: a UPC-A stays 12 digits.
 */
export function parseGtin(raw: string): string | undefined {
  const text = collapseWhitespace(raw).replace(GTIN_LABEL, '');
  if (!/^\d[\d -]*\d$/.test(text)) return undefined;
  const digits = text.replace(/[ -]/g, '');
  return GTIN_LENGTHS.has(digits.length) && hasValidCheckDigit(digits) ? digits : undefined;
}

/** GS1 mod-10: from the right, weights 3 and 1 alternate over the digits before the check digit. */
export function hasValidCheckDigit(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 2, weight = 3; i >= 0; i--, weight = 4 - weight) sum += Number(digits[i]) * weight;
  return (10 - (sum % 10)) % 10 === Number(digits[digits.length - 1]);
}
