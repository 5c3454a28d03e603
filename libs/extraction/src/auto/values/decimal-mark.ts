import { findAmounts } from './amounts';
import { findCurrencyMarks } from './currency';
import { adjacentMark } from './price';
import type { DecimalMark } from './value-kind';

/**
 * How many prices showing one decimal mark outweigh one showing the other: a page of euro prices
 * with one dollar price in an advert is still a page of decimal commas, a currency switcher that
 * shows both is neither.
 */
const MAJORITY = 3;
/**
 * Characters read on each side of a number for its currency mark: the longest mark (`dollars`)
 * and the widest gap `adjacentMark` allows, with room to spare for a letter mark's word boundary.
 */
const MARK_WINDOW = 16;
/**
 * The end of a number written with a point or a comma before its last digits: the only numbers
 * that may show a decimal mark (where spaces group it, `1 299,00`, the match starts after them).
 */
const MARKED_NUMBER = /\d+(?:[.,'’]\d+)*[.,]\d+/g;

/**
 * Languages whose writers put a comma between units and fractions, by their BCP 47 primary tag.
 * Spanish is left out (Mexico and much of Latin America write `$1,299.00`), and so is every
 * language of the decimal point: English pages sell in rupiah and dong too (`Rp 34.000`), where
 * the point groups.
 */
const DECIMAL_COMMA_LANGUAGES: ReadonlySet<string> = new Set(
  'de fr it nl pt da sv nb nn no fi is pl cs sk ru uk be bg sr hr bs sl mk sq ro hu el tr az kk ka lt lv et ca gl eu id vi'.split(' '),
);
/** Regions where money is written with a decimal point whatever the language (`CHF 23.50` in `de-CH`, `fr-CH`, `it-CH`). */
const DECIMAL_POINT_REGIONS: ReadonlySet<string> = new Set(['ch', 'li']);

/**
 * The decimal mark a page writes, for the numbers that leave theirs open (`1,089`, `23.450`; see
 * `findAmounts`), or undefined when the page does not tell.
 *
 * The rule: the page's prices decide, each amount beside a currency mark whose own writing shows
 * its decimal mark (two different marks as in `1.234,56 €`, a lone mark before one or two digits as
 * in `4,95 €`, a repeated mark as in `1.234.567 ₫`, which groups, so the other one is decimal).
 * One mark wins when its prices outnumber the other's three to one. Other numbers are no evidence:
 * versions, ratings and times (`USB 3.0`, `4.5 Sterne`, `18.30 Uhr`) write a point on pages whose
 * prices write a comma. When no price tells, a language that writes a decimal comma does, outside
 * Switzerland and Liechtenstein; a language of the decimal point never does (see
 * `DECIMAL_COMMA_LANGUAGES`), so such a page keeps the shop convention that a lone mark before three
 * digits groups thousands.
 *
 * @param text the page's visible text
 * @param lang the page's language (BCP 47, `<html lang>`), if it states one
 */
export function pageDecimalMark(text: string, lang?: string): DecimalMark | undefined {
  let points = 0;
  let commas = 0;
  // A page's text runs to megabytes: a native scan finds the numbers with a mark, and only a few
  // characters around each are read for its amount and its currency.
  for (const match of text.matchAll(MARKED_NUMBER)) {
    const from = Math.max(0, match.index - MARK_WINDOW);
    const end = match.index + match[0].length;
    const around = text.slice(from, end + MARK_WINDOW);
    const amount = findAmounts(around).find((candidate) => candidate.end === end - from);
    if (amount === undefined) continue;
    const mark = writtenDecimalMark(around.slice(amount.start, amount.end));
    if (mark === undefined || adjacentMark(around, amount, findCurrencyMarks(around)) === undefined) continue;
    if (mark === '.') points++;
    else commas++;
  }
  if (points > 0 && points >= commas * MAJORITY) return '.';
  if (commas > 0 && commas >= points * MAJORITY) return ',';
  if (points > 0 || commas > 0) return undefined;
  return languageDecimalMark(lang);
}

/** The decimal mark a number shows by itself (see `pageDecimalMark`), or undefined when it shows none. */
function writtenDecimalMark(written: string): DecimalMark | undefined {
  const point = written.lastIndexOf('.');
  const comma = written.lastIndexOf(',');
  if (point >= 0 && comma >= 0) return point > comma ? '.' : ',';
  const mark: DecimalMark | undefined = point >= 0 ? '.' : comma >= 0 ? ',' : undefined;
  if (mark === undefined) return undefined;
  const at = written.indexOf(mark);
  if (at !== written.lastIndexOf(mark)) return mark === '.' ? ',' : '.';
  const fraction = written.length - at - 1;
  return fraction === 1 || fraction === 2 ? mark : undefined;
}

function languageDecimalMark(lang: string | undefined): DecimalMark | undefined {
  const [language, region] = (lang ?? '').toLowerCase().split(/[-_]/);
  if (!DECIMAL_COMMA_LANGUAGES.has(language) || (region !== undefined && DECIMAL_POINT_REGIONS.has(region))) return undefined;
  return ',';
}
