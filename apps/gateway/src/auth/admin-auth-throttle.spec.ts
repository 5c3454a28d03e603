import { AdminAuthThrottle } from './admin-auth-throttle';

describe(AdminAuthThrottle.name, () => {
  let now: number;
  const throttle = () => new AdminAuthThrottle(3, 60_000, () => now);

  beforeEach(() => (now = 1_000_000));

  it('refuses an address once it failed the limit within the window, until its oldest failure leaves it', () => {
    const t = throttle();
    expect(t.failed('10.0.0.1')).toBe(false);
    now += 10_000;
    expect(t.failed('10.0.0.1')).toBe(false);
    expect(t.retryAfterMs('10.0.0.1')).toBe(0);
    now += 10_000;
    expect(t.failed('10.0.0.1')).toBe(true);
    // The first failure was 20 s ago: 40 s to go.
    expect(t.retryAfterMs('10.0.0.1')).toBe(40_000);
    // Other addresses are not held back.
    expect(t.retryAfterMs('10.0.0.2')).toBe(0);
    now += 40_000;
    expect(t.retryAfterMs('10.0.0.1')).toBe(0);
  });

  it('says the limit was reached once, not again for each failure past it', () => {
    const t = throttle();
    expect([1, 2, 3, 4, 5].map(() => t.failed('10.0.0.1'))).toEqual([false, false, true, false, false]);
  });

  it('forgets failures older than the window', () => {
    const t = throttle();
    t.failed('10.0.0.1');
    t.failed('10.0.0.1');
    now += 60_001;
    expect(t.failed('10.0.0.1')).toBe(false);
    expect(t.retryAfterMs('10.0.0.1')).toBe(0);
  });
});
