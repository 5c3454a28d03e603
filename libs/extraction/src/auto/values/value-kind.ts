/**
 * What a value on a page is, as far as extraction cares: it decides how a raw text is normalised
 * and which page slots may hold a field.
 */
export type ValueKind =
  'price' | 'currency' | 'date' | 'rating' | 'gtin' | 'email' | 'phone' | 'image_url' | 'url' | 'availability' | 'number' | 'text';

/** A value in the form extraction answers it. */
export interface NormalisedValue {
  value: string;
  /** price: the ISO 4217 currency when the text or context says it, e.g. `{ currency: 'EUR' }` */
  extra?: Record<string, string>;
}

/** What is known about the page a value comes from; each part only sharpens a guess. */
export interface ValueContext {
  /** The page's URL: its top-level domain tells `$` (CAD on `.ca`) and `kr` (SEK on `.se`) apart. */
  pageUrl?: URL;
  /** The page's language (BCP 47, e.g. `en-US`, `de`): date order, month names, currency region. */
  lang?: string;
  /**
   * The mark the page writes between whole units and fractions (`pageDecimalMark`), for the one
   * number a text leaves open: a lone point or comma before three digits (`1,089`, `23.450`). Read
   * only when such a number is met, so that a page can work it out on first use.
   */
  readonly decimalMark?: DecimalMark;
}

/** What separates whole units from fractions: `.` in `19.99`, `,` in `19,99`. */
export type DecimalMark = '.' | ',';

/** Collapses every run of whitespace (NBSP included) to one space and trims the ends. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
