import type { ValueContext } from './value-kind';

/** A currency written in a text, with the ISO 4217 code it stands for (undefined: cannot tell). */
export interface CurrencyMark {
  code: string | undefined;
  start: number;
  end: number;
}

/** Marks shared by several currencies, resolved from the page's country (`resolveShared`). */
type SharedMark = 'dollar' | 'yen' | 'krone' | 'rupee';

/** Written marks → currency. Prefixed dollars first: the longest mark at a position wins. */
const MARKS: ReadonlyMap<string, string | SharedMark> = new Map<string, string | SharedMark>([
  ['US$', 'USD'],
  ['U$S', 'USD'],
  ['CA$', 'CAD'],
  ['C$', 'CAD'],
  ['AU$', 'AUD'],
  ['A$', 'AUD'],
  ['NZ$', 'NZD'],
  ['HK$', 'HKD'],
  ['S$', 'SGD'],
  ['MX$', 'MXN'],
  ['NT$', 'TWD'],
  ['R$', 'BRL'],
  ['$', 'dollar'],
  ['€', 'EUR'],
  ['£', 'GBP'],
  ['¥', 'yen'],
  ['￥', 'yen'],
  ['円', 'JPY'],
  ['元', 'CNY'],
  ['₹', 'INR'],
  ['₽', 'RUB'],
  ['₩', 'KRW'],
  ['₺', 'TRY'],
  ['₴', 'UAH'],
  ['₪', 'ILS'],
  ['฿', 'THB'],
  ['₫', 'VND'],
  ['₱', 'PHP'],
  ['₦', 'NGN'],
  ['₡', 'CRC'],
  ['₸', 'KZT'],
  ['₾', 'GEL'],
  ['zł', 'PLN'],
  ['Kč', 'CZK'],
  ['Ft', 'HUF'],
  ['lei', 'RON'],
  ['руб', 'RUB'],
  ['грн', 'UAH'],
  ['лв', 'BGN'],
  ['kr', 'krone'],
  ['Kr', 'krone'],
  ['Rs', 'rupee'],
  ['CHF', 'CHF'],
  ['SFr', 'CHF'],
  ['Fr', 'CHF'],
  ['RM', 'MYR'],
  ['Rp', 'IDR'],
  ['TL', 'TRY'],
  ['Dhs', 'AED'],
  ['euro', 'EUR'],
  ['euros', 'EUR'],
  ['Euro', 'EUR'],
  ['dollars', 'dollar'],
]);

/** Marks made of letters must stand alone (`kr` is not the end of `Akr`); symbols need not. */
const LETTERS = /\p{L}/u;
const ISO_CODES: ReadonlySet<string> = new Set(Intl.supportedValuesOf('currency'));

const MARK_PATTERN = new RegExp(
  [...[...MARKS.keys()].sort((a, b) => b.length - a.length).map(markPattern), '(?<!\\p{L})[A-Z]{3}(?!\\p{L})'].join('|'),
  'gu',
);

function markPattern(mark: string): string {
  const escaped = mark.replace(/[$.]/g, '\\$&');
  if (!LETTERS.test(mark)) return escaped;
  // Letter marks must not be glued to other letters: "kr" not inside "Akra", "Ft" not in "Ftp".
  return `(?<!\\p{L})${escaped}(?!\\p{L})`;
}

/** Dollar countries by top-level domain or language region; everything else reads `$` as USD. */
const DOLLAR_BY_COUNTRY: Readonly<Record<string, string>> = {
  ca: 'CAD',
  au: 'AUD',
  nz: 'NZD',
  sg: 'SGD',
  hk: 'HKD',
  tw: 'TWD',
  mx: 'MXN',
  ar: 'ARS',
  cl: 'CLP',
  uy: 'UYU',
};
const KRONE_BY_COUNTRY: Readonly<Record<string, string>> = { se: 'SEK', no: 'NOK', dk: 'DKK', is: 'ISK', fo: 'DKK' };
const KRONE_BY_LANGUAGE: Readonly<Record<string, string>> = { sv: 'SEK', nb: 'NOK', nn: 'NOK', no: 'NOK', da: 'DKK', is: 'ISK' };
const RUPEE_BY_COUNTRY: Readonly<Record<string, string>> = { pk: 'PKR', lk: 'LKR', np: 'NPR', mu: 'MUR' };

/**
 * Every currency written in `text`, in order: symbols (`€`, `US$`, `zł`), ISO 4217 codes in capitals
 * (`EUR`; a capitalised word that is no currency code is skipped) and a few words (`euros`).
 * Shared marks take the page's country: `$` is CAD on a `.ca` page or in `en-CA`, `¥` is CNY for
 * Chinese and JPY otherwise, `kr` is SEK/NOK/DKK/ISK by domain or language and unknown elsewhere.
 */
export function findCurrencyMarks(text: string, context?: ValueContext): CurrencyMark[] {
  const marks: CurrencyMark[] = [];
  for (const match of text.matchAll(MARK_PATTERN)) {
    const written = match[0];
    const known = MARKS.get(written);
    let code: string | undefined;
    if (known === undefined) {
      if (!ISO_CODES.has(written)) continue;
      code = written;
    } else {
      code = isShared(known) ? resolveShared(known, context) : known;
    }
    marks.push({ code, start: match.index, end: match.index + written.length });
  }
  return marks;
}

/**
 * The ISO 4217 code a text that is only a currency names (`€`, `eur`, `US$`, `CHF`), or undefined.
 */
export function currencyCodeOf(text: string, context?: ValueContext): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '' || trimmed.length > 8) return undefined;
  const upper = trimmed.toUpperCase();
  if (/^[A-Z]{3}$/.test(upper) && ISO_CODES.has(upper)) return upper;
  const marks = findCurrencyMarks(trimmed.replace(/\.$/, ''), context);
  if (marks.length !== 1 || marks[0].start !== 0 || marks[0].end !== trimmed.replace(/\.$/, '').length) return undefined;
  return marks[0].code;
}

function isShared(code: string): code is SharedMark {
  return code === 'dollar' || code === 'yen' || code === 'krone' || code === 'rupee';
}

function resolveShared(mark: SharedMark, context: ValueContext | undefined): string | undefined {
  const country = countryOf(context);
  const language = context?.lang?.toLowerCase().split(/[-_]/)[0];
  switch (mark) {
    case 'dollar':
      return (country && DOLLAR_BY_COUNTRY[country]) ?? 'USD';
    case 'yen':
      return country === 'cn' || language === 'zh' ? 'CNY' : 'JPY';
    case 'krone':
      return (country && KRONE_BY_COUNTRY[country]) ?? (language && KRONE_BY_LANGUAGE[language]) ?? undefined;
    case 'rupee':
      return (country && RUPEE_BY_COUNTRY[country]) ?? 'INR';
  }
}

/**
 * The page's country, lower-case: the region of its language tag (`en-CA` → `ca`), else its
 * top-level domain when that is a country code (`shop.co.uk` → `uk`).
 */
function countryOf(context: ValueContext | undefined): string | undefined {
  const region = context?.lang?.split(/[-_]/)[1];
  if (region !== undefined && /^[a-z]{2}$/i.test(region)) return region.toLowerCase();
  const host = context?.pageUrl?.hostname;
  if (host === undefined) return undefined;
  const tld = host.slice(host.lastIndexOf('.') + 1).toLowerCase();
  return /^[a-z]{2}$/.test(tld) ? tld : undefined;
}
