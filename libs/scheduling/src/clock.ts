/**
 * Where time-driven code reads the time. Production uses `systemClock`; tests use a `ManualClock`
 * and advance it past due times and across DST changes instead of waiting.
 */
export interface Clock {
  now(): Date;
}

/** The process's wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to: for tests and simulations. */
export class ManualClock implements Clock {
  private current: number;

  constructor(start: Date | string) {
    this.current = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  /** Moves the clock forward by `ms` milliseconds (never backward). */
  advance(ms: number): Date {
    if (ms < 0) throw new RangeError('a ManualClock only moves forward');
    this.current += ms;
    return this.now();
  }

  /** Moves the clock to `instant`, which must not be before the current time. */
  set(instant: Date | string): Date {
    const target = new Date(instant).getTime();
    if (target < this.current) throw new RangeError('a ManualClock only moves forward');
    this.current = target;
    return this.now();
  }
}
