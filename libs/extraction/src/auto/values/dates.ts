import type * as Chrono from 'chrono-node';
import { collapseWhitespace, type ValueContext } from './value-kind';

/** `2024-03-01`, `2024-03-01T10:00:00Z`, `2024-03-01 10:00 +0100`. */
const ISO =
  /(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?:(?:T|\s+)(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?(?![\d-])/i;
/** `2024/03/01`, `2024.03.01`. */
const YEAR_FIRST = /(?<!\d)(\d{4})([./])(\d{1,2})\2(\d{1,2})(?![\d.]\d)/;
/** `01.03.2024`, `1/3/2024`, `01-03-2024`: day or month first, by separator and language. */
const YEAR_LAST = /(?<!\d)(\d{1,2})([./-])(\d{1,2})\2(\d{4})(?!\d)/;
/** `2024年3月1日` (Chinese, Japanese), `2024년 3월 1일` (Korean). */
const CJK = /(\d{4})\s*[年년]\s*(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日일]/;
/** A year as people write it: chrono only runs on texts with one, so "2 days ago" is no date. */
const YEAR = /(?<!\d)(?:1[6-9]|20|21)\d{2}(?!\d)/;
/** Month names and their abbreviations in the languages chrono reads, by their first letters. */
const MONTH_NAME =
  /(?<!\p{L})(?:jan|feb|fév|fev|mar|mär|maa|apr|avr|abr|may|mai|mag|maj|mei|mayo|jun|juin|giu|jul|juil|lug|aug|aoû|aou|ago|sep|set|oct|okt|ott|out|nov|dec|dez|déc|dic|gen|ene|янв|фев|мар|апр|мая|май|июн|июл|авг|сен|окт|ноя|дек)/iu;
/** Longest text searched for a date: chrono's cost grows with the text. */
const MAX_DATE_TEXT = 200;
/** Letters a date text may hold beyond the date (`Published on`, `Updated:`) when `strict`. */
const MAX_STRAY_LETTERS = 16;

/** What the date reader needs of a chrono locale. */
interface ChronoLocale {
  strict: Chrono.Chrono;
}
/** Languages whose chrono locale the date reader uses. */
const CHRONO_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'ru', 'uk', 'fi'] as const;
let chronoLocales: Readonly<Record<string, ChronoLocale>> | undefined;

/**
 * chrono's locales, loaded on the first date that needs them: chrono takes about 0.15 s to load,
 * which every process importing the extraction library (every service, every test) would pay.
 */
function localesOfChrono(): Readonly<Record<string, ChronoLocale>> {
  if (chronoLocales === undefined) {
    const chrono = require('chrono-node') as typeof Chrono;
    chronoLocales = Object.fromEntries(CHRONO_LANGUAGES.map((language) => [language, chrono[language]]));
  }
  return chronoLocales;
}
const FALLBACK_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'nl', 'pt', 'sv', 'ru'];
/** chrono needs a reference date; only absolute dates (with a written year) are kept, so any will do. */
const REFERENCE = new Date(Date.UTC(2000, 0, 1));

interface DateParts {
  year: number;
  month: number;
  day: number;
  hour?: number;
  minute?: number;
  second?: number;
  /** `Z`, or `±HH:MM`. */
  offset?: string;
}

interface Found {
  parts: DateParts;
  /** The stretch of the text the date was read from. */
  start: number;
  end: number;
}

/**
 * The date a text states, as ISO 8601: `2024-03-01`, or `2024-03-01T10:15:00` with `Z`/`±HH:MM`
 * when the text gives a time (and zone). Reads ISO dates, numeric dates (`01.03.2024` day first;
 * `03/01/2024` month first for English without a non-US region, day first otherwise, and whichever
 * order is possible when one part is over 12), CJK dates, and named months in the languages chrono
 * knows (`March 3, 2024`, `3 mars 2024`, `3. März 2024`). Only dates with a written year: relative
 * dates ("2 days ago") depend on when the page was fetched.
 *
 * @param strict refuse texts that say much more than a date, for telling what a page slot holds
 */
export function parseDate(raw: string, context?: ValueContext, strict = false): string | undefined {
  const text = collapseWhitespace(raw);
  if (text.length < 6 || text.length > MAX_DATE_TEXT || !YEAR.test(text)) return undefined;
  const found = numericDate(text, context) ?? namedMonthDate(text, context);
  if (found === undefined || !isRealDate(found.parts)) return undefined;
  if (strict) {
    const rest = text.slice(0, found.start) + text.slice(found.end);
    if (rest.replace(/[^\p{L}]/gu, '').length > MAX_STRAY_LETTERS) return undefined;
  }
  return formatDate(found.parts);
}

function numericDate(text: string, context: ValueContext | undefined): Found | undefined {
  const iso = ISO.exec(text);
  if (iso) {
    const parts: DateParts = { year: +iso[1], month: +iso[2], day: +iso[3] };
    if (iso[4] !== undefined) {
      parts.hour = +iso[4];
      parts.minute = +iso[5];
      parts.second = iso[6] === undefined ? 0 : +iso[6];
      if (iso[7] !== undefined) parts.offset = formatOffset(iso[7]);
    }
    return { parts, start: iso.index, end: iso.index + iso[0].length };
  }
  const yearFirst = YEAR_FIRST.exec(text);
  if (yearFirst) {
    return { parts: { year: +yearFirst[1], month: +yearFirst[3], day: +yearFirst[4] }, ...span(yearFirst) };
  }
  const cjk = CJK.exec(text);
  if (cjk) return { parts: { year: +cjk[1], month: +cjk[2], day: +cjk[3] }, ...span(cjk) };
  const yearLast = YEAR_LAST.exec(text);
  if (yearLast) {
    const first = +yearLast[1];
    const second = +yearLast[3];
    const monthFirst = second > 12 || (first <= 12 && yearLast[2] === '/' && writesMonthFirst(context));
    const parts = monthFirst ? { year: +yearLast[4], month: first, day: second } : { year: +yearLast[4], month: second, day: first };
    return { parts, ...span(yearLast) };
  }
  return undefined;
}

function span(match: RegExpExecArray): { start: number; end: number } {
  return { start: match.index, end: match.index + match[0].length };
}

/** US English writes `03/01/2024` for March 1st; so does an unknown page, most often American. */
function writesMonthFirst(context: ValueContext | undefined): boolean {
  const lang = context?.lang?.toLowerCase();
  if (lang === undefined || lang === '') return true;
  const [language, region] = lang.split(/[-_]/);
  return language === 'en' && (region === undefined || region === 'us');
}

function namedMonthDate(text: string, context: ValueContext | undefined): Found | undefined {
  if (!MONTH_NAME.test(text)) return undefined;
  const language = context?.lang?.toLowerCase().split(/[-_]/)[0];
  const locales = localesOfChrono();
  const languages = language !== undefined && language in locales ? [language, ...FALLBACK_LANGUAGES] : FALLBACK_LANGUAGES;
  for (const name of new Set(languages)) {
    for (const result of locales[name].strict.parse(text, REFERENCE)) {
      const start = result.start;
      if (!YEAR.test(result.text) || !start.isCertain('year') || !start.isCertain('month') || !start.isCertain('day')) {
        continue;
      }
      const parts: DateParts = { year: start.get('year')!, month: start.get('month')!, day: start.get('day')! };
      if (start.isCertain('hour')) {
        parts.hour = start.get('hour')!;
        parts.minute = start.get('minute') ?? 0;
        parts.second = start.get('second') ?? 0;
        const offset = start.isCertain('timezoneOffset') ? start.get('timezoneOffset') : null;
        if (offset !== null) parts.offset = offsetOfMinutes(offset);
      }
      return { parts, start: result.index, end: result.index + result.text.length };
    }
  }
  return undefined;
}

function isRealDate(parts: DateParts): boolean {
  const { year, month, day } = parts;
  if (month < 1 || month > 12 || day < 1 || year < 1000) return false;
  if (day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  if (parts.hour === undefined) return true;
  return parts.hour <= 24 && (parts.minute ?? 0) < 60 && (parts.second ?? 0) <= 60;
}

function formatDate(parts: DateParts): string {
  const date = `${parts.year}-${pad(parts.month)}-${pad(parts.day)}`;
  if (parts.hour === undefined) return date;
  return `${date}T${pad(parts.hour)}:${pad(parts.minute ?? 0)}:${pad(parts.second ?? 0)}${parts.offset ?? ''}`;
}

/** `Z`, `+01`, `+0100`, `+01:00` → `Z` or `+01:00`. */
function formatOffset(written: string): string {
  if (written.toUpperCase() === 'Z') return 'Z';
  const digits = written.slice(1).replace(':', '');
  return `${written[0]}${digits.slice(0, 2)}:${digits.slice(2, 4) || '00'}`;
}

function offsetOfMinutes(minutes: number): string {
  if (minutes === 0) return 'Z';
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${pad(Math.floor(absolute / 60))}:${pad(absolute % 60)}`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
