import { z } from 'zod';
import { scheduleSchema } from './schedule.schema';

function issues(body: unknown): { path: string; code: string; message: string }[] {
  const parsed = scheduleSchema.safeParse(body);
  if (parsed.success) throw new Error(`accepted: ${JSON.stringify(parsed.data)}`);
  return parsed.error.issues.map((issue: z.core.$ZodIssue) => ({ path: issue.path.join('.'), code: issue.code, message: issue.message }));
}

const weekly = (times: unknown, days: unknown = ['mon']) => ({ times_of_day: times, cadence: { weekly: { days } } });

describe('scheduleSchema', () => {
  describe('accepts', () => {
    it('a rate, with plural units made singular', () => {
      expect(scheduleSchema.parse({ rate: { every: 2, unit: 'hours' } })).toEqual({ rate: { every: 2, unit: 'hour' } });
      expect(scheduleSchema.parse({ rate: { every: 60, unit: 'minutes' } }).rate).toEqual({ every: 60, unit: 'minute' });
      expect(scheduleSchema.parse({ rate: { every: 1, unit: 'day' } }).rate).toEqual({ every: 1, unit: 'day' });
    });

    it('a calendar, with days and times deduplicated and in order, and the zone name as sent', () => {
      expect(
        scheduleSchema.parse({
          calendar: weekly(['17:00', '09:00', '09:00'], ['fri', 'MON', 'wed', 'mon']),
          timezone: 'europe/paris',
          schedule_state: 'paused',
        }),
      ).toEqual({
        calendar: { times_of_day: ['09:00', '17:00'], cadence: { weekly: { days: ['mon', 'wed', 'fri'] } } },
        timezone: 'europe/paris',
        schedule_state: 'paused',
      });
    });

    it('an at with or without seconds, and null as left out', () => {
      const parsed = scheduleSchema.parse({ at: '2026-12-01T09:00', timezone: 'Asia/Kolkata', rate: null });
      expect(parsed).toEqual({ at: '2026-12-01T09:00', timezone: 'Asia/Kolkata' });
      expect(parsed.rate).toBeUndefined();
      expect(scheduleSchema.parse({ at: '2028-02-29T09:00:30', timezone: 'UTC' }).at).toBe('2028-02-29T09:00:30');
    });

    it('a timezone beside a rate (it has no effect)', () => {
      expect(scheduleSchema.parse({ rate: { every: 1, unit: 'hour' }, timezone: 'America/New_York' }).timezone).toBe('America/New_York');
    });
  });

  describe('refuses, naming the field', () => {
    it.each([
      ['no timing at all', {}, '', 'custom'],
      ['two timings', { rate: { every: 1, unit: 'hour' }, at: '2026-12-01T09:00', timezone: 'UTC' }, 'at', 'custom'],
      ['an unknown field', { rate: { every: 1, unit: 'hour' }, cron: '* * * * *' }, '', 'unrecognized_keys'],
      ['an unknown field in rate', { rate: { every: 1, unit: 'hour', start: 1 } }, 'rate', 'unrecognized_keys'],
      ['a rate under 60 minutes', { rate: { every: 59, unit: 'minutes' } }, 'rate.every', 'custom'],
      ['a rate of 0', { rate: { every: 0, unit: 'hour' } }, 'rate.every', 'too_small'],
      ['a fractional rate', { rate: { every: 1.5, unit: 'hour' } }, 'rate.every', 'invalid_type'],
      ['a rate as a string', { rate: { every: '2', unit: 'hour' } }, 'rate.every', 'invalid_type'],
      ['a rate over 366 days', { rate: { every: 367, unit: 'day' } }, 'rate.every', 'custom'],
      ['an unknown unit', { rate: { every: 1, unit: 'week' } }, 'rate.unit', 'custom'],
      ['a missing unit', { rate: { every: 1 } }, 'rate.unit', 'invalid_type'],
      ['a calendar without timezone', { calendar: weekly(['09:00']) }, 'timezone', 'invalid_type'],
      ['an at without timezone', { at: '2026-12-01T09:00' }, 'timezone', 'invalid_type'],
      ['a time that is not a full hour', { calendar: weekly(['09:00', '09:30']), timezone: 'UTC' }, 'calendar.times_of_day.1', 'custom'],
      ['a time of 24:00', { calendar: weekly(['24:00']), timezone: 'UTC' }, 'calendar.times_of_day.0', 'invalid_format'],
      ['a time without leading zero', { calendar: weekly(['9:00']), timezone: 'UTC' }, 'calendar.times_of_day.0', 'invalid_format'],
      ['no times', { calendar: weekly([]), timezone: 'UTC' }, 'calendar.times_of_day', 'too_small'],
      ['an unknown day', { calendar: weekly(['09:00'], ['monday']), timezone: 'UTC' }, 'calendar.cadence.weekly.days.0', 'custom'],
      ['no days', { calendar: weekly(['09:00'], []), timezone: 'UTC' }, 'calendar.cadence.weekly.days', 'too_small'],
      ['a zone that does not exist', { calendar: weekly(['09:00']), timezone: 'Mars/Olympus' }, 'timezone', 'custom'],
      ['an offset instead of a zone', { calendar: weekly(['09:00']), timezone: '+02:00' }, 'timezone', 'custom'],
      ['an at with an offset', { at: '2026-12-01T09:00+01:00', timezone: 'UTC' }, 'at', 'invalid_format'],
      ['an at on a day that does not exist', { at: '2027-02-29T09:00', timezone: 'UTC' }, 'at', 'custom'],
      ['an at with hour 25', { at: '2027-03-01T25:00', timezone: 'UTC' }, 'at', 'custom'],
      ['an unknown state', { rate: { every: 1, unit: 'hour' }, schedule_state: 'stopped' }, 'schedule_state', 'invalid_value'],
    ])('%s', (_what, body, path, code) => {
      expect(issues(body)[0]).toMatchObject({ path, code });
    });

    it('refuses a cadence other than weekly as an unknown field', () => {
      expect(issues({ calendar: { times_of_day: ['09:00'], cadence: { daily: {} } }, timezone: 'UTC' })).toContainEqual(
        expect.objectContaining({ path: 'calendar.cadence', code: 'unrecognized_keys' }),
      );
    });

    it('says why a short rate is refused', () => {
      expect(issues({ rate: { every: 30, unit: 'minute' } })[0]?.message).toBe(
        'must be at least 60 with unit `minute`: the minimum interval between runs is 60 minutes',
      );
    });

    it('says why 09:30 is refused', () => {
      expect(issues({ calendar: weekly(['09:30']), timezone: 'UTC' })[0]?.message).toContain('full hour');
    });
  });
});
