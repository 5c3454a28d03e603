import { scheduleSchema } from '@trawl/contracts';
import { planFiring } from './missed-firings';

const HOUR = 3_600_000;
const hourly = scheduleSchema.parse({ rate: { every: 1, unit: 'hour' } });
const anchor = new Date('2026-06-01T00:00:00Z');
const at = (iso: string) => new Date(iso);

describe(planFiring.name, () => {
  it('fires a due time found on time and plans the next one', () => {
    expect(planFiring(hourly, anchor, at('2026-06-01T05:00:00Z'), at('2026-06-01T05:00:01Z'), { graceMs: HOUR })).toEqual({
      fire: at('2026-06-01T05:00:00Z'),
      skipped: [],
      skippedTotal: 0,
      nextDueAt: at('2026-06-01T06:00:00Z'),
    });
  });

  it('fires only the latest of several missed due times and skips the older ones', () => {
    expect(planFiring(hourly, anchor, at('2026-06-01T05:00:00Z'), at('2026-06-01T08:30:00Z'), { graceMs: HOUR })).toEqual({
      fire: at('2026-06-01T08:00:00Z'),
      skipped: [at('2026-06-01T05:00:00Z'), at('2026-06-01T06:00:00Z'), at('2026-06-01T07:00:00Z')],
      skippedTotal: 3,
      nextDueAt: at('2026-06-01T09:00:00Z'),
    });
  });

  it('fires nothing when even the latest due time is older than the grace', () => {
    const daily = scheduleSchema.parse({ calendar: { times_of_day: ['09:00'], cadence: { weekly: { days: ['mon'] } } }, timezone: 'UTC' });
    expect(planFiring(daily, anchor, at('2026-06-01T09:00:00Z'), at('2026-06-01T11:00:00Z'), { graceMs: HOUR })).toEqual({
      fire: undefined,
      skipped: [at('2026-06-01T09:00:00Z')],
      skippedTotal: 1,
      nextDueAt: at('2026-06-08T09:00:00Z'),
    });
  });

  it('fires a due time exactly at the edge of the grace', () => {
    expect(planFiring(hourly, anchor, at('2026-06-01T05:00:00Z'), at('2026-06-01T06:00:00Z'), { graceMs: HOUR }).fire).toEqual(
      at('2026-06-01T06:00:00Z'),
    );
    expect(planFiring(hourly, anchor, at('2026-06-01T05:00:00Z'), at('2026-06-01T05:59:59Z'), { graceMs: 0 })).toMatchObject({
      fire: undefined,
      skippedTotal: 1,
    });
  });

  it('records at most maxRecordedSkips of a long outage, the newest, and counts them all', () => {
    const plan = planFiring(hourly, anchor, at('2026-06-01T01:00:00Z'), at('2026-06-11T00:10:00Z'), {
      graceMs: HOUR,
      maxRecordedSkips: 3,
    });
    expect(plan.fire).toEqual(at('2026-06-11T00:00:00Z'));
    expect(plan.skipped).toEqual([at('2026-06-10T21:00:00Z'), at('2026-06-10T22:00:00Z'), at('2026-06-10T23:00:00Z')]);
    expect(plan.skippedTotal).toBe(10 * 24 - 1);
  });

  it('ends an at schedule after its one due time', () => {
    const once = scheduleSchema.parse({ at: '2026-06-01T09:00', timezone: 'Europe/Paris' });
    expect(planFiring(once, anchor, at('2026-06-01T07:00:00Z'), at('2026-06-01T07:00:02Z'), { graceMs: HOUR })).toEqual({
      fire: at('2026-06-01T07:00:00Z'),
      skipped: [],
      skippedTotal: 0,
      nextDueAt: null,
    });
  });
});
