import { scheduleSchema } from '@trawl/contracts';
import { nextDueOnStateChange, scheduleOnReplace } from './schedule-changes';
import { scheduleSchemaAsOf } from './schedule-validation';

const hourly = scheduleSchema.parse({ rate: { every: 1, unit: 'hour' } });
const now = new Date('2026-06-01T10:20:00Z');

describe('scheduleOnReplace', () => {
  it('starts a new schedule active, anchored now', () => {
    expect(scheduleOnReplace(hourly, undefined, now)).toEqual({
      state: 'active',
      anchorAt: now,
      nextDueAt: new Date('2026-06-01T11:20:00Z'),
    });
  });

  it('keeps a paused schedule paused when the replacement leaves schedule_state out', () => {
    expect(scheduleOnReplace(hourly, 'paused', now)).toEqual({ state: 'paused', anchorAt: now, nextDueAt: null });
  });

  it('follows schedule_state when the replacement gives it', () => {
    expect(scheduleOnReplace({ ...hourly, schedule_state: 'active' }, 'paused', now).state).toBe('active');
  });
});

describe('nextDueOnStateChange', () => {
  const anchor = new Date('2026-06-01T00:00:00Z');

  it('clears the due time on pause', () => {
    expect(nextDueOnStateChange(hourly, anchor, 'paused', now)).toBeNull();
  });

  it('resumes on the original grid without firing the times missed while paused', () => {
    expect(nextDueOnStateChange(hourly, anchor, 'active', now)).toEqual(new Date('2026-06-01T11:00:00Z'));
  });

  it('never fires an at schedule resumed after its time', () => {
    const at = scheduleSchema.parse({ at: '2026-06-01T09:00', timezone: 'UTC' });
    expect(nextDueOnStateChange(at, anchor, 'active', now)).toBeNull();
  });
});

describe('scheduleSchemaAsOf', () => {
  it('refuses an at in the past on the path `at`', () => {
    const parsed = scheduleSchemaAsOf(now).safeParse({ at: '2026-06-01T12:00', timezone: 'Europe/Paris' });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]).toMatchObject({ path: ['at'], code: 'custom' });
  });

  it('accepts an at in the future in its zone', () => {
    expect(scheduleSchemaAsOf(now).parse({ at: '2026-06-01T12:30', timezone: 'Europe/Paris' }).at).toBe('2026-06-01T12:30');
  });
});
