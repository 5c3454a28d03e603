import { Schedule, scheduleSchema } from '@trawl/contracts';
import { firingsBetween, nextFiring } from './next-firing';
import { resolveWallClock } from './wall-clock';

const HOUR = 3_600_000;

function schedule(body: unknown): Schedule {
  return scheduleSchema.parse(body);
}

function weekly(days: string[], times: string[], timezone: string): Schedule {
  return schedule({ calendar: { times_of_day: times, cadence: { weekly: { days } } }, timezone });
}

/** The first `count` due times after `after`, as ISO strings. */
function firings(s: Schedule, after: string, count: number, anchor = after): string[] {
  const out: string[] = [];
  let at = new Date(after);
  for (let i = 0; i < count; i++) {
    const next = nextFiring(s, at, new Date(anchor));
    if (!next) break;
    out.push(next.toISOString());
    at = next;
  }
  return out;
}

describe('resolveWallClock', () => {
  it.each([
    ['an ordinary winter time in Paris', 'Europe/Paris', '2026-01-15T09:00', '2026-01-15T08:00:00.000Z'],
    ['an ordinary summer time in Paris', 'Europe/Paris', '2026-07-15T09:00', '2026-07-15T07:00:00.000Z'],
    ['a skipped time in Paris (clocks jump 02:00 → 03:00)', 'Europe/Paris', '2026-03-29T02:00', '2026-03-29T01:00:00.000Z'],
    ['a time inside the skipped hour in Paris', 'Europe/Paris', '2026-03-29T02:30', '2026-03-29T01:00:00.000Z'],
    ['the first 02:00 of the repeated hour in Paris', 'Europe/Paris', '2026-10-25T02:00', '2026-10-25T00:00:00.000Z'],
    ['a skipped time in New York', 'America/New_York', '2026-03-08T02:00', '2026-03-08T07:00:00.000Z'],
    ['the first 01:00 of the repeated hour in New York', 'America/New_York', '2026-11-01T01:00', '2026-11-01T05:00:00.000Z'],
    ['a skipped time in Sydney (October)', 'Australia/Sydney', '2026-10-04T02:00', '2026-10-03T16:00:00.000Z'],
    ['the first 02:00 of the repeated hour in Sydney (April)', 'Australia/Sydney', '2026-04-05T02:00', '2026-04-04T15:00:00.000Z'],
    ['a time in Kolkata (+05:30)', 'Asia/Kolkata', '2026-06-01T09:00', '2026-06-01T03:30:00.000Z'],
    ['a skipped time of a 30-minute DST jump (Lord Howe)', 'Australia/Lord_Howe', '2026-10-04T02:00', '2026-10-03T15:30:00.000Z'],
    ['29 February of a leap year', 'Europe/Paris', '2028-02-29T09:00', '2028-02-29T08:00:00.000Z'],
    ['UTC', 'UTC', '2026-03-29T02:00', '2026-03-29T02:00:00.000Z'],
  ])('resolves %s', (_what, zone, local, expected) => {
    const [date, time] = local.split('T') as [string, string];
    const [year, month, day] = date.split('-').map(Number) as [number, number, number];
    const [hour, minute] = time.split(':').map(Number) as [number, number];
    expect(resolveWallClock({ year, month, day, hour, minute }, zone).toISOString()).toBe(expected);
  });
});

describe('nextFiring', () => {
  describe('rate', () => {
    it('fires one interval after the anchor, then on the anchor grid', () => {
      const s = schedule({ rate: { every: 2, unit: 'hours' } });
      expect(firings(s, '2026-05-01T10:17:00Z', 3)).toEqual([
        '2026-05-01T12:17:00.000Z',
        '2026-05-01T14:17:00.000Z',
        '2026-05-01T16:17:00.000Z',
      ]);
    });

    it('does not drift when a firing is handled late', () => {
      const s = schedule({ rate: { every: 1, unit: 'hour' } });
      const anchor = new Date('2026-05-01T10:00:00Z');
      // Handled 25 minutes late: the next due time is still on the hour.
      expect(nextFiring(s, new Date('2026-05-01T11:25:00Z'), anchor)?.toISOString()).toBe('2026-05-01T12:00:00.000Z');
      // Long after (the scheduler was down): the next grid point after that time.
      expect(nextFiring(s, new Date('2026-05-03T07:59:59Z'), anchor)?.toISOString()).toBe('2026-05-03T08:00:00.000Z');
    });

    it('takes a due time equal to `after` as past (after is exclusive)', () => {
      const s = schedule({ rate: { every: 90, unit: 'minutes' } });
      const anchor = new Date('2026-05-01T00:00:00Z');
      expect(nextFiring(s, new Date('2026-05-01T01:30:00Z'), anchor)?.toISOString()).toBe('2026-05-01T03:00:00.000Z');
    });

    it('fires the first time one interval after an anchor still in the future', () => {
      const s = schedule({ rate: { every: 1, unit: 'day' } });
      expect(nextFiring(s, new Date('2026-05-01T00:00:00Z'), new Date('2026-05-02T00:00:00Z'))?.toISOString()).toBe(
        '2026-05-03T00:00:00.000Z',
      );
    });

    it('keeps absolute time across DST: every 2 hours is 7,200 s through the Paris spring-forward night', () => {
      const s = schedule({ rate: { every: 2, unit: 'hour' }, timezone: 'Europe/Paris' });
      const due = firings(s, '2026-03-28T22:00:00Z', 3).map((iso) => new Date(iso).getTime());
      expect(due[1]! - due[0]!).toBe(2 * HOUR);
      expect(due[2]! - due[1]!).toBe(2 * HOUR);
    });

    it('keeps absolute time across DST: every day is 24 h, so its local hour shifts in New York in November', () => {
      const s = schedule({ rate: { every: 1, unit: 'day' } });
      expect(firings(s, '2026-10-31T13:00:00Z', 2)).toEqual(['2026-11-01T13:00:00.000Z', '2026-11-02T13:00:00.000Z']);
    });

    it('steps over 29 February of a leap year', () => {
      const s = schedule({ rate: { every: 1, unit: 'days' } });
      expect(firings(s, '2028-02-27T10:00:00Z', 3)).toEqual([
        '2028-02-28T10:00:00.000Z',
        '2028-02-29T10:00:00.000Z',
        '2028-03-01T10:00:00.000Z',
      ]);
    });
  });

  describe('calendar', () => {
    it('fires on the listed weekdays at the listed hours in the zone', () => {
      // 2026-06-01 is a Monday; Paris is UTC+2 in summer.
      const s = weekly(['mon', 'wed', 'fri'], ['09:00', '17:00'], 'Europe/Paris');
      expect(firings(s, '2026-06-01T08:00:00Z', 5)).toEqual([
        '2026-06-01T15:00:00.000Z',
        '2026-06-03T07:00:00.000Z',
        '2026-06-03T15:00:00.000Z',
        '2026-06-05T07:00:00.000Z',
        '2026-06-05T15:00:00.000Z',
      ]);
    });

    it('wraps from Sunday to the next week', () => {
      const s = weekly(['mon'], ['00:00'], 'UTC');
      expect(firings(s, '2026-06-01T00:00:00Z', 2)).toEqual(['2026-06-08T00:00:00.000Z', '2026-06-15T00:00:00.000Z']);
    });

    it('keeps the wall-clock hour across DST (09:00 Paris is 08:00Z in winter, 07:00Z in summer)', () => {
      const s = weekly(['sun'], ['09:00'], 'Europe/Paris');
      expect(firings(s, '2026-03-21T00:00:00Z', 2)).toEqual(['2026-03-22T08:00:00.000Z', '2026-03-29T07:00:00.000Z']);
    });

    it('fires a skipped 02:00 when the clocks jump (Paris, last Sunday of March)', () => {
      const s = weekly(['sun'], ['02:00'], 'Europe/Paris');
      expect(firings(s, '2026-03-28T12:00:00Z', 2)).toEqual(['2026-03-29T01:00:00.000Z', '2026-04-05T00:00:00.000Z']);
    });

    it('fires once when a skipped 02:00 lands on the 03:00 also listed', () => {
      const s = weekly(['sun'], ['01:00', '02:00', '03:00', '04:00'], 'Europe/Paris');
      expect(firings(s, '2026-03-28T12:00:00Z', 3)).toEqual([
        '2026-03-29T00:00:00.000Z', // 01:00 CET
        '2026-03-29T01:00:00.000Z', // 02:00 skipped and 03:00 CEST: one firing
        '2026-03-29T02:00:00.000Z', // 04:00 CEST
      ]);
    });

    it('fires a repeated 02:00 once, at its first occurrence (Paris, last Sunday of October)', () => {
      const s = weekly(['sun'], ['02:00', '03:00'], 'Europe/Paris');
      expect(firings(s, '2026-10-24T12:00:00Z', 3)).toEqual([
        '2026-10-25T00:00:00.000Z', // 02:00 CEST, first occurrence
        '2026-10-25T02:00:00.000Z', // 03:00 CET (not 02:00 CET at 01:00Z)
        '2026-11-01T01:00:00.000Z',
      ]);
    });

    it('handles New York: a skipped 02:00 in March and a repeated 01:00 in November', () => {
      expect(firings(weekly(['sun'], ['02:00'], 'America/New_York'), '2026-03-07T12:00:00Z', 2)).toEqual([
        '2026-03-08T07:00:00.000Z',
        '2026-03-15T06:00:00.000Z',
      ]);
      expect(firings(weekly(['sun'], ['01:00', '02:00'], 'America/New_York'), '2026-10-31T12:00:00Z', 3)).toEqual([
        '2026-11-01T05:00:00.000Z', // 01:00 EDT
        '2026-11-01T07:00:00.000Z', // 02:00 EST
        '2026-11-08T06:00:00.000Z',
      ]);
    });

    it('handles the southern hemisphere (Sydney): DST ends in April and starts in October', () => {
      expect(firings(weekly(['sun'], ['02:00', '03:00'], 'Australia/Sydney'), '2026-04-04T00:00:00Z', 2)).toEqual([
        '2026-04-04T15:00:00.000Z', // 02:00 AEDT, first of the two
        '2026-04-04T17:00:00.000Z', // 03:00 AEST
      ]);
      expect(firings(weekly(['sun'], ['02:00', '03:00'], 'Australia/Sydney'), '2026-10-03T00:00:00Z', 2)).toEqual([
        '2026-10-03T16:00:00.000Z', // 02:00 skipped, 03:00 AEDT: one firing
        '2026-10-10T15:00:00.000Z',
      ]);
    });

    it('handles a zone with a 30-minute offset (Kolkata)', () => {
      expect(firings(weekly(['tue'], ['09:00', '23:00'], 'Asia/Kolkata'), '2026-06-01T00:00:00Z', 3)).toEqual([
        '2026-06-02T03:30:00.000Z',
        '2026-06-02T17:30:00.000Z',
        '2026-06-09T03:30:00.000Z',
      ]);
    });

    it('finds a time whose local day is already the next day in UTC terms (Kolkata 00:00)', () => {
      expect(firings(weekly(['wed'], ['00:00'], 'Asia/Kolkata'), '2026-06-02T18:00:00Z', 1)).toEqual(['2026-06-02T18:30:00.000Z']);
    });

    it('fires on 29 February of a leap year and skips it otherwise', () => {
      // 2028-02-29 is a Tuesday.
      expect(firings(weekly(['tue'], ['09:00'], 'UTC'), '2028-02-28T12:00:00Z', 2)).toEqual([
        '2028-02-29T09:00:00.000Z',
        '2028-03-07T09:00:00.000Z',
      ]);
      expect(firings(weekly(['sun'], ['09:00'], 'UTC'), '2027-02-27T12:00:00Z', 1)).toEqual(['2027-02-28T09:00:00.000Z']);
    });

    it('ignores the anchor', () => {
      const s = weekly(['mon'], ['09:00'], 'UTC');
      expect(nextFiring(s, new Date('2026-06-01T00:00:00Z'), new Date('2020-01-01T00:00:00Z'))?.toISOString()).toBe(
        '2026-06-01T09:00:00.000Z',
      );
    });
  });

  describe('at', () => {
    it('fires once at the wall-clock time in the zone', () => {
      const s = schedule({ at: '2026-12-01T09:00', timezone: 'Europe/Paris' });
      expect(nextFiring(s, new Date('2026-11-01T00:00:00Z'), new Date())?.toISOString()).toBe('2026-12-01T08:00:00.000Z');
      expect(nextFiring(s, new Date('2026-12-01T08:00:00Z'), new Date())).toBeNull();
    });

    it('fires a skipped time when the clocks jump, a repeated one at its first occurrence', () => {
      expect(
        nextFiring(schedule({ at: '2026-03-29T02:30', timezone: 'Europe/Paris' }), new Date('2026-01-01'), new Date())?.toISOString(),
      ).toBe('2026-03-29T01:00:00.000Z');
      expect(
        nextFiring(schedule({ at: '2026-11-01T01:30', timezone: 'America/New_York' }), new Date('2026-01-01'), new Date())?.toISOString(),
      ).toBe('2026-11-01T05:30:00.000Z');
    });

    it('fires on 29 February of a leap year', () => {
      expect(
        nextFiring(schedule({ at: '2028-02-29T23:00:00', timezone: 'Asia/Kolkata' }), new Date('2028-01-01'), new Date())?.toISOString(),
      ).toBe('2028-02-29T17:30:00.000Z');
    });
  });
});

describe('firingsBetween', () => {
  it('lists the due times of a rate in (after, until], the newest when there are more than the limit', () => {
    const s = schedule({ rate: { every: 1, unit: 'hour' } });
    const anchor = new Date('2026-05-01T00:00:00Z');
    expect(firingsBetween(s, new Date('2026-05-01T00:00:00Z'), new Date('2026-05-01T03:00:00Z'), anchor, 10)).toEqual({
      dueTimes: [new Date('2026-05-01T01:00:00Z'), new Date('2026-05-01T02:00:00Z'), new Date('2026-05-01T03:00:00Z')],
      total: 3,
    });
    expect(firingsBetween(s, new Date('2026-05-01T00:00:00Z'), new Date('2027-05-01T00:00:00Z'), anchor, 2)).toEqual({
      dueTimes: [new Date('2027-04-30T23:00:00Z'), new Date('2027-05-01T00:00:00Z')],
      total: 8_760,
    });
  });

  it('lists the due times of a calendar across a DST change', () => {
    const s = weekly(['sat', 'sun'], ['02:00'], 'Europe/Paris');
    expect(
      firingsBetween(s, new Date('2026-03-27T00:00:00Z'), new Date('2026-03-30T00:00:00Z'), new Date(0), 10).dueTimes.map((d) =>
        d.toISOString(),
      ),
    ).toEqual(['2026-03-28T01:00:00.000Z', '2026-03-29T01:00:00.000Z']);
  });

  it('is empty when nothing is due', () => {
    const s = schedule({ at: '2026-12-01T09:00', timezone: 'UTC' });
    expect(firingsBetween(s, new Date('2026-12-01T09:00:00Z'), new Date('2027-01-01'), new Date(0), 10)).toEqual({
      dueTimes: [],
      total: 0,
    });
  });
});

describe('nextFiring over whole years', () => {
  const ZONES = ['Europe/Paris', 'America/New_York', 'Australia/Sydney', 'Asia/Kolkata', 'Australia/Lord_Howe', 'UTC'];
  // The hours DST moves in these zones (01:00 repeats in New York, 02:00 is skipped or repeated
  // elsewhere), and midnight.
  const TIMES = ['00:00', '01:00', '02:00', '03:00'];
  const YEARS = [...ZONES.map((zone) => [zone, 2026] as const), ['Europe/Paris', 2028] as const, ['Australia/Sydney', 2028] as const];

  it.each(YEARS)('fires every listed day × hour of %s in %i exactly once, in order', (zone, year) => {
    const s = weekly(['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], TIMES, zone);
    // Every (day, hour) of the year as resolveWallClock places it; a skipped hour and the hour
    // after it can be one instant, which fires once.
    const expected = new Set<number>();
    const days = year === 2028 ? 366 : 365;
    for (let d = 0; d < days; d++) {
      const date = new Date(Date.UTC(year, 0, 1 + d));
      for (const time of TIMES) {
        const hour = Number(time.slice(0, 2));
        expected.add(resolveWallClock({ year, month: date.getUTCMonth() + 1, day: date.getUTCDate(), hour, minute: 0 }, zone).getTime());
      }
    }
    const first = Math.min(...expected);
    const last = Math.max(...expected);
    const fired: number[] = [];
    for (let at = nextFiring(s, new Date(first - 1), new Date(0)); at && at.getTime() <= last; at = nextFiring(s, at, new Date(0))) {
      fired.push(at.getTime());
    }
    expect(fired).toEqual([...expected].sort((a, b) => a - b));
  });
});
