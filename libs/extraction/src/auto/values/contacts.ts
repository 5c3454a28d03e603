import { collapseWhitespace } from './value-kind';

const EMAIL = /^[^\s@<>()[\],;:"]+@[^\s@<>()[\],;:"]+\.[a-z]{2,}$/i;
/** A label before a number: `Tel:`, `Phone`, `Call`, `Fax`, `Tél.`, `Telefon:`. */
const PHONE_LABEL = /^(?:tel|tél|tele?phone|telefon|telefono|teléfono|téléphone|phone|ph|call(?: us)?|mobile|mob|cell|fax|fon)\.?\s*:?\s*/i;
/** Only what phone numbers are written with. */
const PHONE_CHARACTERS = /^\+?[\d\s().\-/]+$/;
/** Shapes of dates, which use the same characters. */
const DATE_SHAPE = /^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$/;

/**
 * The e-mail address a text (or `mailto:` link) is, with its domain in lower case, or undefined.
 */
export function parseEmail(raw: string): string | undefined {
  const text = collapseWhitespace(raw)
    .replace(/^mailto:/i, '')
    .replace(/\?.*$/, '');
  if (!EMAIL.test(text)) return undefined;
  const at = text.lastIndexOf('@');
  return text.slice(0, at + 1) + text.slice(at + 1).toLowerCase();
}

/**
 * The telephone number a text (or `tel:` link) is, as `+` (when written, or for a leading `00`)
 * and its digits: `+1 (555) 123-4567` → `+15551234567`, `Call 555-1234` → `5551234`. Needs 7 to
 * 15 digits (E.164's limit) and, to tell it from other numbers, a `+`, a label or `tel:`, or
 * grouping; bare digit runs (a GTIN, an order number) and dates are not phone numbers.
 */
export function parsePhone(raw: string): string | undefined {
  let text = collapseWhitespace(raw);
  let labelled = false;
  if (/^tel:/i.test(text)) {
    text = decodeURIComponentSafe(text.slice(4));
    labelled = true;
  }
  const unlabelled = text.replace(PHONE_LABEL, '');
  labelled ||= unlabelled !== text;
  text = unlabelled.replace(/\s*(?:ext\.?|x)\s*\d{1,5}$/i, '');
  if (!PHONE_CHARACTERS.test(text) || DATE_SHAPE.test(text)) return undefined;
  const digits = text.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15) return undefined;
  const international = text.startsWith('+') || /^00[1-9]/.test(digits);
  if (!labelled && !international && !/\d[\s().\-/]+\d/.test(text)) return undefined;
  if (text.startsWith('+')) return `+${digits}`;
  return /^00[1-9]/.test(digits) ? `+${digits.slice(2)}` : digits;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
