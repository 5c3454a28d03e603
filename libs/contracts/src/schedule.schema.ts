import { IANAZone } from 'luxon';
import { z } from 'zod';

/**
 * The `schedule` object of a scheduled job as the Batch API accepts it (spec-batch-api §2 "Schedule"):
 * exactly one of `rate`, `calendar`, `at`, plus `timezone` for `calendar` and `at`, plus an optional
 * `schedule_state`. Used by `POST /v1/jobs` (type `scheduled`) and `PUT /v1/jobs/{id}/schedule`.
 *
 * Messages read after the field's name ("`schedule.rate.every` must be …") and every issue carries the
 * field's path, so the gateway's body validation names the field in its problem+json. A missing
 * required field is a zod `invalid_type` issue (400), a value of the right type that is not allowed is
 * a `custom`/range issue (422).
 *
 * The schema has no clock: whether an `at` time is already past is checked by `scheduleSchemaAsOf` in
 * `@trawl/scheduling`, which knows how a wall-clock time maps to an instant.
 */

/** Units of `rate.unit` after parsing. The API also accepts the plural forms (`hours`). */
export const SCHEDULE_RATE_UNITS = ['minute', 'hour', 'day'] as const;
export type ScheduleRateUnit = (typeof SCHEDULE_RATE_UNITS)[number];

const RATE_UNIT_NAMES: Readonly<Record<string, ScheduleRateUnit>> = {
  minute: 'minute',
  minutes: 'minute',
  hour: 'hour',
  hours: 'hour',
  day: 'day',
  days: 'day',
};

/** Length of one `rate.unit`, in minutes. */
export const SCHEDULE_RATE_UNIT_MINUTES: Readonly<Record<ScheduleRateUnit, number>> = {
  minute: 1,
  hour: 60,
  day: 1_440,
};

/** Day abbreviations of `calendar.cadence.weekly.days`, in ISO order (Monday first). */
export const SCHEDULE_WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type ScheduleWeekday = (typeof SCHEDULE_WEEKDAYS)[number];

export const SCHEDULE_STATES = ['active', 'paused'] as const;
export type ScheduleState = (typeof SCHEDULE_STATES)[number];

/** Bounds of a schedule. */
export const SCHEDULE_LIMITS = {
  /** Spec §2 and §8: the minimum interval between runs. */
  minIntervalMinutes: 60,
  /** Our bound (the spec is silent): a rate longer than a year is a mistake, not a schedule. */
  maxIntervalMinutes: 366 * 1_440,
  /** Full hours in a day: more entries than this can only repeat one. */
  maxTimesOfDay: 24,
} as const;

const TIME_OF_DAY = /^([01]\d|2[0-3]):([0-5]\d)$/;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/;
// IANA names only (`Europe/Paris`, `UTC`, `Etc/GMT+5`): Intl also takes offsets such as `+02:00`,
// which the spec does not allow and which would silently ignore daylight saving time.
const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

/** Leaves `null` and absence alike as `undefined` (the API's rule for optional fields). */
function optional<T extends z.ZodType>(schema: T) {
  return schema.nullish().transform((value) => (value ?? undefined) as z.output<T> | undefined);
}

const rateSchema = z
  .strictObject({
    every: z.number({ error: 'must be an integer' }).int({ error: 'must be an integer' }).min(1, { error: 'must be at least 1' }),
    unit: z
      .string({ error: 'must be a string' })
      .refine((unit) => unit in RATE_UNIT_NAMES, {
        error: 'must be one of: minute, hour, day (plural forms are accepted)',
      })
      .transform((unit) => RATE_UNIT_NAMES[unit] as ScheduleRateUnit),
  })
  .superRefine((rate, ctx) => {
    const minutes = rate.every * SCHEDULE_RATE_UNIT_MINUTES[rate.unit];
    if (minutes < SCHEDULE_LIMITS.minIntervalMinutes) {
      const least = Math.ceil(SCHEDULE_LIMITS.minIntervalMinutes / SCHEDULE_RATE_UNIT_MINUTES[rate.unit]);
      ctx.addIssue({
        code: 'custom',
        path: ['every'],
        message: `must be at least ${least} with unit \`${rate.unit}\`: the minimum interval between runs is 60 minutes`,
      });
    } else if (minutes > SCHEDULE_LIMITS.maxIntervalMinutes) {
      ctx.addIssue({ code: 'custom', path: ['every'], message: 'must make an interval of at most 366 days' });
    }
  });

const timesOfDaySchema = z
  .array(
    z
      .string({ error: 'must be a string' })
      .regex(TIME_OF_DAY, { error: 'must be a time of day "HH:MM" from 00:00 to 23:00' })
      // Spec §2: "times of day must be full hours (09:00 is valid, 09:30 is not)".
      .refine((time) => time.endsWith(':00'), { error: 'must be a full hour such as 09:00 (09:30 is not allowed)' }),
    { error: 'must be an array of "HH:00" strings' },
  )
  .min(1, { error: 'must hold at least one time of day' })
  .max(SCHEDULE_LIMITS.maxTimesOfDay, { error: `must hold at most ${SCHEDULE_LIMITS.maxTimesOfDay} times of day` })
  // A repeated time fires once; keep one of each, in the order of the day.
  .transform((times) => [...new Set(times)].sort());

const weekdaysSchema = z
  .array(
    z
      .string({ error: 'must be a string' })
      .transform((day) => day.toLowerCase())
      .refine((day): day is ScheduleWeekday => (SCHEDULE_WEEKDAYS as readonly string[]).includes(day), {
        error: `must be one of: ${SCHEDULE_WEEKDAYS.join(', ')}`,
      }),
    { error: 'must be an array of day abbreviations' },
  )
  .min(1, { error: 'must hold at least one day' })
  .max(SCHEDULE_WEEKDAYS.length, { error: 'must hold at most 7 days' })
  .transform((days) => SCHEDULE_WEEKDAYS.filter((day) => (days as string[]).includes(day)));

const calendarSchema = z.strictObject({
  times_of_day: timesOfDaySchema,
  cadence: z.strictObject(
    { weekly: z.strictObject({ days: weekdaysSchema }, { error: 'must be an object with `days`' }) },
    { error: 'must be an object with `weekly`' },
  ),
});

const atSchema = z
  .string({ error: 'must be a string' })
  .regex(LOCAL_DATE_TIME, {
    error: 'must be a local date and time "YYYY-MM-DDTHH:MM" without an offset (the zone is `timezone`)',
  })
  .refine(isCalendarDateTime, { error: 'is not a date and time that exists on the calendar' });

const timezoneSchema = z.string({ error: 'must be a string' }).refine((name) => IANA_NAME.test(name) && IANAZone.isValidZone(name), {
  error: 'must be an IANA time zone name such as Europe/Paris',
});
// The name is kept as sent: ICU's canonical form would turn Asia/Kolkata into Asia/Calcutta.

/** The `schedule` object, validated and normalised (plural units singular, days and times sorted, deduplicated). */
export const scheduleSchema = z
  .strictObject(
    {
      rate: optional(rateSchema),
      calendar: optional(calendarSchema),
      at: optional(atSchema),
      timezone: optional(timezoneSchema),
      schedule_state: optional(z.enum(SCHEDULE_STATES, { error: `must be one of: ${SCHEDULE_STATES.join(', ')}` })),
    },
    { error: 'must be an object' },
  )
  .superRefine((schedule, ctx) => {
    const kinds = (['rate', 'calendar', 'at'] as const).filter((kind) => schedule[kind] !== undefined);
    if (kinds.length === 0) {
      ctx.addIssue({ code: 'custom', path: [], message: 'must hold exactly one of `rate`, `calendar`, `at`' });
      return;
    }
    if (kinds.length > 1) {
      ctx.addIssue({
        code: 'custom',
        path: [kinds[1] as string],
        message: `cannot be combined with \`${kinds[0]}\`: a schedule holds exactly one of \`rate\`, \`calendar\`, \`at\``,
      });
      return;
    }
    // A rate runs in absolute time, so a timezone beside it is accepted and has no effect.
    if (kinds[0] !== 'rate' && schedule.timezone === undefined) {
      ctx.addIssue({
        code: 'invalid_type',
        expected: 'string',
        input: undefined,
        path: ['timezone'],
        message: `is required with \`${kinds[0]}\``,
      });
    }
  });

/** A parsed, normalised schedule. `schedule_state` is `undefined` when the caller left it out. */
export type Schedule = z.output<typeof scheduleSchema>;

function isCalendarDateTime(value: string): boolean {
  const match = LOCAL_DATE_TIME.exec(value);
  if (!match) return true; // the regex reports the format
  const [year, month, day, hour, minute, second] = match.slice(1).map((part) => Number(part ?? 0)) as number[];
  if (hour! > 23 || minute! > 59 || second! > 59 || month! < 1 || month! > 12 || day! < 1) return false;
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  return day! <= daysInMonth;
}
