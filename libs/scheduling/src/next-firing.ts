import { Schedule, SCHEDULE_RATE_UNIT_MINUTES, SCHEDULE_WEEKDAYS } from '@trawl/contracts';
import { ianaZone, localDate, parseLocalDateTime, resolveWallClock } from './wall-clock';

/** The parts of a schedule that decide when it fires. */
export type ScheduleTiming = Pick<Schedule, 'rate' | 'calendar' | 'at' | 'timezone'>;

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The first due time of `schedule` strictly after `after`, or `null` when it will never fire again
 * (an `at` schedule whose time has come).
 *
 * - `rate`: in absolute time on a grid anchored at `anchor` (the schedule's creation or last
 *   replacement), so firings never drift however late each one is handled: `anchor + k × interval`,
 *   k ≥ 1 (the first firing is one interval after the anchor). Every 2 hours is 7,200 s, across DST too.
 * - `calendar`: the next listed weekday × time of day on the wall clock of `timezone`; DST gaps and
 *   repeats as `resolveWallClock` decides (a skipped time fires when the clocks jump, a repeated one
 *   fires once, at its first occurrence).
 * - `at`: the wall-clock time in `timezone`, once.
 *
 * @param after exclusive lower bound
 * @param anchor origin of a rate's grid; ignored by `calendar` and `at`
 */
export function nextFiring(schedule: ScheduleTiming, after: Date, anchor: Date): Date | null {
  if (schedule.rate) {
    const period = schedule.rate.every * SCHEDULE_RATE_UNIT_MINUTES[schedule.rate.unit] * MINUTE_MS;
    const elapsed = after.getTime() - anchor.getTime();
    const steps = elapsed < 0 ? 1 : Math.floor(elapsed / period) + 1;
    return new Date(anchor.getTime() + steps * period);
  }
  if (schedule.calendar) return nextCalendarFiring(schedule.calendar, requireZone(schedule), after);
  if (schedule.at !== undefined) {
    const due = atInstant(schedule.at, requireZone(schedule));
    return due.getTime() > after.getTime() ? due : null;
  }
  throw new RangeError('a schedule holds one of rate, calendar, at');
}

/**
 * The due times of `schedule` in `(after, until]`, oldest first, at most `limit` of them (the newest
 * ones when there are more); `total` counts them all.
 */
export function firingsBetween(
  schedule: ScheduleTiming,
  after: Date,
  until: Date,
  anchor: Date,
  limit: number,
): { dueTimes: Date[]; total: number } {
  if (schedule.rate) {
    // Counted arithmetically: a year-long outage of a minute-grained rate is not a loop of 500k steps.
    const first = nextFiring(schedule, after, anchor)!;
    if (first > until) return { dueTimes: [], total: 0 };
    const period = schedule.rate.every * SCHEDULE_RATE_UNIT_MINUTES[schedule.rate.unit] * MINUTE_MS;
    const total = Math.floor((until.getTime() - first.getTime()) / period) + 1;
    const skip = Math.max(0, total - limit);
    const dueTimes = Array.from({ length: total - skip }, (_, i) => new Date(first.getTime() + (skip + i) * period));
    return { dueTimes, total };
  }
  const dueTimes: Date[] = [];
  let total = 0;
  for (let due = nextFiring(schedule, after, anchor); due && due <= until; due = nextFiring(schedule, due, anchor)) {
    total++;
    dueTimes.push(due);
    if (dueTimes.length > limit) dueTimes.shift();
  }
  return { dueTimes, total };
}

/** The instant of an `at` schedule's local time in its zone. */
export function atInstant(at: string, timezone: string): Date {
  return resolveWallClock(parseLocalDateTime(at), timezone);
}

function nextCalendarFiring(calendar: NonNullable<Schedule['calendar']>, zone: string, after: Date): Date {
  const days = new Set<string>(calendar.cadence.weekly.days);
  const hours = calendar.times_of_day.map((time) => Number(time.slice(0, 2)));
  const tz = ianaZone(zone);
  const start = localDate(after, zone);
  let best: number | undefined;
  let bestDay = 0;
  // From the day before (a skipped time can land after midnight) to 8 days on: every listed weekday
  // occurs in that window.
  for (let offset = -1; offset <= 8; offset++) {
    // A day's times land within it, give or take a DST jump of an hour or two, so nothing two days
    // after the day of the best candidate can come before it.
    if (best !== undefined && offset > bestDay + 1) break;
    const date = new Date(Date.UTC(start.year, start.month - 1, start.day) + offset * DAY_MS);
    const weekday = SCHEDULE_WEEKDAYS[(date.getUTCDay() + 6) % 7]!;
    if (!days.has(weekday)) continue;
    // Most days have no DST change within a day of them: one offset serves all their times.
    const before = tz.offset(date.getTime() - DAY_MS);
    const steady = before === tz.offset(date.getTime() + 2 * DAY_MS);
    for (const hour of hours) {
      const due = steady
        ? date.getTime() + hour * HOUR_MS - before * MINUTE_MS
        : resolveWallClock(
            { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour, minute: 0 },
            zone,
          ).getTime();
      if (due > after.getTime() && (best === undefined || due < best)) {
        best = due;
        bestDay = offset;
      }
    }
  }
  if (best === undefined) throw new RangeError('a weekly calendar lists at least one day and time');
  return new Date(best);
}

function requireZone(schedule: ScheduleTiming): string {
  if (!schedule.timezone) throw new RangeError('calendar and at schedules need a timezone');
  return schedule.timezone;
}
