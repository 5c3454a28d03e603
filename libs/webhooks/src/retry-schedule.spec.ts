import { DEFAULT_RETRY_SCHEDULE, nextAttemptAt, retryDelayMs } from './retry-schedule';

describe('retryDelayMs', () => {
  const schedule = { baseMs: 1_000, maxDelayMs: 60_000, windowMs: 3_600_000 };

  it('doubles its ceiling per attempt, capped at maxDelayMs', () => {
    const top = () => 0.999999;
    expect(retryDelayMs(schedule, 1, top)).toBe(999);
    expect(retryDelayMs(schedule, 2, top)).toBe(1_999);
    expect(retryDelayMs(schedule, 5, top)).toBe(15_999);
    expect(retryDelayMs(schedule, 30, top)).toBe(59_999);
  });

  it('spreads delays over the whole range (full jitter)', () => {
    expect(retryDelayMs(schedule, 3, () => 0)).toBe(0);
    expect(retryDelayMs(schedule, 3, () => 0.5)).toBe(2_000);
  });
});

describe('nextAttemptAt', () => {
  const schedule = { baseMs: 1_000, maxDelayMs: 60_000, windowMs: 10_000 };
  const start = new Date('2026-01-01T00:00:00Z');

  it('schedules the retry after the delay', () => {
    const now = new Date(start.getTime() + 1_000);
    expect(nextAttemptAt(schedule, 2, start, now, () => 0.5)?.toISOString()).toBe('2026-01-01T00:00:02.000Z');
  });

  it('gives up once the retry would fall outside the window', () => {
    const now = new Date(start.getTime() + 9_500);
    expect(nextAttemptAt(schedule, 4, start, now, () => 0.5)).toBeUndefined();
  });

  it('retries for about a day by default, in a bounded number of attempts', () => {
    let now = new Date(start);
    let attempts = 1;
    for (let next = nextAttemptAt(DEFAULT_RETRY_SCHEDULE, 1, start, now, () => 0.5); next; attempts++) {
      now = next;
      next = nextAttemptAt(DEFAULT_RETRY_SCHEDULE, attempts + 1, start, now, () => 0.5);
    }
    expect(now.getTime() - start.getTime()).toBeGreaterThan(20 * 3600_000);
    expect(attempts).toBeLessThan(30);
  });
});
