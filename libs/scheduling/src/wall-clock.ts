import { IANAZone } from 'luxon';

/** A local date and time on a wall clock, without a zone. `month` is 1–12. */
export interface WallClockTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  /** Default 0. */
  second?: number;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** The luxon zone of an IANA name; throws a RangeError for a name that is not one. */
export function ianaZone(name: string): IANAZone {
  const zone = IANAZone.create(name);
  if (!zone.isValid) throw new RangeError(`not an IANA time zone: ${name}`);
  return zone;
}

/**
 * The instant a wall-clock time in `zoneName` stands for, with the two DST cases decided once for
 * every schedule (apps/scheduler/README.md "Decisions"):
 * - a time that happens twice (the hour repeated when clocks go back) is its **first** occurrence;
 * - a time that does not exist (skipped when clocks go forward, e.g. 02:00 in Europe/Paris on the last
 *   Sunday of March) is the **first valid instant after it**: the moment the clocks jumped (03:00 CEST).
 */
export function resolveWallClock(local: WallClockTime, zoneName: string): Date {
  const zone = ianaZone(zoneName);
  const naive = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second ?? 0);
  // A zone changes its offset at most once in a few hours (in the years schedules run), so the
  // offsets in force a day either side cover both sides of any transition near this time. When they
  // are the same, there is no transition near: one offset, one instant (each look-up costs ~25 µs).
  const before = zone.offset(naive - DAY_MS);
  const after = zone.offset(naive + DAY_MS);
  if (before === after) return new Date(naive - before * MINUTE_MS);
  const offsets = [...new Set([before, zone.offset(naive), after])];
  const matches = offsets
    .map((offset) => naive - offset * MINUTE_MS)
    .filter((instant) => zone.offset(instant) * MINUTE_MS === naive - instant);
  if (matches.length > 0) return new Date(Math.min(...matches));
  return new Date(transitionBetween(zone, naive - Math.max(...offsets) * MINUTE_MS, naive - Math.min(...offsets) * MINUTE_MS));
}

/** Parses the API's local date-time (`2026-12-01T09:00`, seconds optional) into its parts. */
export function parseLocalDateTime(value: string): WallClockTime {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!match) throw new RangeError(`not a local date-time: ${value}`);
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { year, month, day, hour, minute, second };
}

/** The calendar date of `instant` on the zone's wall clock. */
export function localDate(instant: Date, zoneName: string): { year: number; month: number; day: number } {
  const zone = ianaZone(zoneName);
  const shifted = new Date(instant.getTime() + zone.offset(instant.getTime()) * MINUTE_MS);
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() };
}

/**
 * The instant the zone's offset changes between `before` (old offset) and `after` (new offset), to
 * the millisecond: a binary search over at most a day, about 27 offset look-ups.
 */
function transitionBetween(zone: IANAZone, before: number, after: number): number {
  const oldOffset = zone.offset(before);
  let lo = before;
  let hi = after;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (zone.offset(mid) === oldOffset) lo = mid;
    else hi = mid;
  }
  return hi;
}
