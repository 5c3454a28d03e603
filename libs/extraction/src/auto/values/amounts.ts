import type { ValueContext } from './value-kind';

/** A number found in a text: its decimal form and where it was written. */
export interface Amount {
  /** Digits with `.` as the decimal separator and no grouping, fraction digits as written: `1299.00`. */
  value: string;
  /** Offset of its first digit in the text. */
  start: number;
  /** Offset just past its last digit. */
  end: number;
}

const DIGIT = /[0-9]/;
/** Marks that group thousands in some locale: `1,299` `1.299` `1 299` (NBSP, narrow NBSP) `1'299`. */
const GROUP_ONLY = new Set([' ', '\u00a0', '\u202f', '\u2009', "'", '’']);
const POINT_OR_COMMA = new Set(['.', ',']);

/** Where the page's decimal mark comes from: read only for a number that leaves its mark open. */
type PageMarks = Pick<ValueContext, 'decimalMark'>;

/**
 * Every number written in `text`, in order, with its grouping and decimal marks read the way the
 * text's locale writes them: `1,299.00` and `1.299,00` are both 1299.00, `19,99` is 19.99. A lone
 * mark before exactly three digits is the one thing a number leaves open: it is decimal when it is
 * the page's decimal mark (`1,089` on a page of `4,95 €` is 1.089, `3.459` on a page of `$12.00`
 * is 3.459), else it groups thousands (`1,299` and `34.000` are integers, as shops mostly write
 * them) unless the integer part is `0` (`0.500`). A plain space groups only when a group of three
 * digits follows, so `3 250` reads as 3250 but `size 10 12` as two numbers. Linear in the text's
 * length.
 *
 * @param page the page's decimal mark, read only when a number leaves it open
 */
export function findAmounts(text: string, page?: PageMarks): Amount[] {
  const amounts: Amount[] = [];
  let i = 0;
  while (i < text.length) {
    if (!DIGIT.test(text[i])) {
      i++;
      continue;
    }
    // Digits right after a number's mark (`12.5.2024` broke after `12`) are numbers of their own.
    const continues = i > 1 && (POINT_OR_COMMA.has(text[i - 1]) || GROUP_ONLY.has(text[i - 1])) && DIGIT.test(text[i - 2]);
    const amount = continues ? digitsOnly(text, i) : readAmount(text, i, page);
    amounts.push(amount);
    i = amount.end;
  }
  return amounts;
}

/** The first number written in `text`, or undefined; see `findAmounts`. */
export function firstAmount(text: string): Amount | undefined {
  for (let i = 0; i < text.length; i++) if (DIGIT.test(text[i])) return readAmount(text, i);
  return undefined;
}

interface Group {
  mark: string;
  digits: string;
  /** Offset just past the group. */
  end: number;
}

function readAmount(text: string, start: number, page?: PageMarks): Amount {
  let end = digitsEnd(text, start);
  const lead = text.slice(start, end);
  const groups: Group[] = [];
  while (end < text.length) {
    const mark = text[end];
    if (!GROUP_ONLY.has(mark) && !POINT_OR_COMMA.has(mark)) break;
    const groupEnd = digitsEnd(text, end + 1);
    if (groupEnd === end + 1) break;
    groups.push({ mark, digits: text.slice(end + 1, groupEnd), end: groupEnd });
    end = groupEnd;
  }
  return interpret(lead, groups, start, page);
}

function digitsOnly(text: string, start: number): Amount {
  const end = digitsEnd(text, start);
  return { value: text.slice(start, end), start, end };
}

function digitsEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && DIGIT.test(text[i])) i++;
  return i;
}

/** Reads the marks; a run that no locale writes ends the number before the first group that breaks it. */
function interpret(lead: string, groups: Group[], start: number, page: PageMarks | undefined): Amount {
  if (groups.length === 0) return { value: lead, start, end: start + lead.length };
  const decimalMark = decimalMarkOf(lead, groups, page);
  const grouping = decimalMark === undefined ? groups : groups.slice(0, -1);
  // Thousands: a lead of at most three digits, then groups of exactly three under one mark.
  let kept = 0;
  if (lead.length <= 3) {
    while (
      kept < grouping.length &&
      grouping[kept].mark === grouping[0].mark &&
      grouping[kept].digits.length === 3 &&
      grouping[kept].mark !== decimalMark
    ) {
      kept++;
    }
  }
  const integer =
    lead +
    grouping
      .slice(0, kept)
      .map((group) => group.digits)
      .join('');
  if (kept < grouping.length) {
    return { value: integer, start, end: kept === 0 ? start + lead.length : grouping[kept - 1].end };
  }
  if (decimalMark === undefined) return { value: integer, start, end: groups[groups.length - 1].end };
  const last = groups[groups.length - 1];
  return { value: `${integer}.${last.digits}`, start, end: last.end };
}

/** The mark before the last group when it is a decimal separator, else undefined. */
function decimalMarkOf(lead: string, groups: Group[], page: PageMarks | undefined): string | undefined {
  const last = groups[groups.length - 1];
  if (!POINT_OR_COMMA.has(last.mark)) return undefined;
  const earlier = groups.slice(0, -1);
  if (earlier.some((group) => POINT_OR_COMMA.has(group.mark) && group.mark !== last.mark)) return last.mark;
  if (earlier.some((group) => group.mark === last.mark)) return undefined;
  if (earlier.some((group) => GROUP_ONLY.has(group.mark))) return last.mark;
  if (last.digits.length !== 3 || lead === '0' || lead.length > 3) return last.mark;
  // One mark before exactly three digits after one to three (`1,089`, `23.450`): nothing in the
  // number tells, so the page's own decimal mark does; a page that shows none reads thousands.
  return page?.decimalMark === last.mark ? last.mark : undefined;
}
