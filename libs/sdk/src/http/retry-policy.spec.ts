import { backoffMs, DEFAULT_RETRY, isRetryableStatus, retryAfterMs } from './retry-policy';

describe(retryAfterMs.name, () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    const now = Date.parse('2026-11-27T12:00:00Z');
    expect(retryAfterMs('5', now)).toBe(5_000);
    expect(retryAfterMs('0.5', now)).toBe(500);
    expect(retryAfterMs('Fri, 27 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Fri, 27 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });
});

describe(backoffMs.name, () => {
  it('waits a random time up to a ceiling that doubles each retry, capped', () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1_000 };
    expect([1, 2, 3, 4, 5].map((retry) => backoffMs(retry, undefined, options, () => 0.999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffMs(3, undefined, options, () => 0)).toBe(0);
  });

  it('never waits less than the server asked, and gives up when it asks too much', () => {
    const options = { ...DEFAULT_RETRY, baseDelayMs: 100, maxRetryAfterMs: 10_000 };
    expect(backoffMs(1, 3_000, options, () => 0.5)).toBe(3_000);
    expect(backoffMs(1, 60_000, options, () => 0.5)).toBeUndefined();
  });
});

describe(isRetryableStatus.name, () => {
  it('retries 429 and 503 only', () => {
    expect([400, 401, 402, 404, 409, 422, 429, 500, 502, 503, 504].filter(isRetryableStatus)).toEqual([429, 503]);
  });
});
