import { admit, EMPTY_HOST_STATE, release, retryAfterMs, type BackoffRules, type HostState } from './host-state';

const NOW = 1_000_000;
const BACKOFF: BackoffRules = { enabled: true, baseMs: 1_000, maxMs: 60_000 };
const permit = (id: string) => ({ id, lapsesAt: NOW + 30_000 });

function admitted(state: HostState, limits: { concurrency: number; ratePerSecond: number }, id: string, latestStart = NOW + 10_000) {
  const admission = admit(state, limits, NOW, permit(id), latestStart);
  if (!admission.admitted) throw new Error(`not admitted: ${admission.reason}`);
  return admission;
}

describe('per-host admission', () => {
  it('admits up to the concurrency limit, then refuses until a permit is released', () => {
    const limits = { concurrency: 2, ratePerSecond: 0 };
    const one = admitted(EMPTY_HOST_STATE, limits, 'a');
    const two = admitted(one.state, limits, 'b');
    expect(two.startAt).toBe(NOW);
    expect(admit(two.state, limits, NOW, permit('c'), NOW + 10_000)).toEqual({ admitted: false, reason: 'concurrency' });
    const freed = release(two.state, 'a', { status: 200 }, NOW, BACKOFF);
    expect(freed.changed).toBe(true);
    expect(admitted(freed.state, limits, 'c').startAt).toBe(NOW);
  });

  it('does not count a permit past its lapse (its worker died)', () => {
    const limits = { concurrency: 1, ratePerSecond: 0 };
    const held = admitted(EMPTY_HOST_STATE, limits, 'a').state;
    const later = NOW + 31_000;
    const admission = admit(held, limits, later, { id: 'b', lapsesAt: later + 30_000 }, later);
    expect(admission.admitted).toBe(true);
    if (admission.admitted) expect(Object.keys(admission.state.permits)).toEqual(['b']);
  });

  it('spaces starts by the rate limit, each load reserving the next free start', () => {
    const limits = { concurrency: 0, ratePerSecond: 4 };
    const starts: number[] = [];
    let state = EMPTY_HOST_STATE;
    for (const id of ['a', 'b', 'c']) {
      const admission = admitted(state, limits, id);
      starts.push(admission.startAt);
      state = admission.state;
    }
    expect(starts).toEqual([NOW, NOW + 250, NOW + 500]);
    expect(admitted(state, limits, 'd').reason).toBe('rate');
  });

  it('refuses a load whose start would come after its latest, saying when the host is free', () => {
    const limits = { concurrency: 0, ratePerSecond: 1 };
    const first = admitted(EMPTY_HOST_STATE, limits, 'a');
    expect(admit(first.state, limits, NOW, permit('b'), NOW + 500)).toEqual({ admitted: false, reason: 'rate', retryAt: NOW + 1_000 });
  });

  it('holds every load until a pause ends, and refuses one that cannot wait that long', () => {
    const paused = release(EMPTY_HOST_STATE, undefined, { status: 429, retryAfterMs: 3_000 }, NOW, BACKOFF).state;
    expect(paused).toMatchObject({ pausedUntil: NOW + 3_000, strikes: 1 });
    const limits = { concurrency: 0, ratePerSecond: 0 };
    expect(admitted(paused, limits, 'a')).toMatchObject({ startAt: NOW + 3_000, reason: 'backoff' });
    expect(admit(paused, limits, NOW, permit('b'), NOW + 2_000)).toEqual({ admitted: false, reason: 'backoff', retryAt: NOW + 3_000 });
  });
});

describe('per-host back-off', () => {
  it('doubles the pause with each 429 in a row that names no Retry-After, up to the cap', () => {
    const pauses: number[] = [];
    let state = EMPTY_HOST_STATE;
    for (let i = 0; i < 8; i++) {
      const at = NOW + i * 100_000;
      state = release(state, undefined, { status: 429 }, at, BACKOFF).state;
      pauses.push(state.pausedUntil - at);
    }
    expect(pauses).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000]);
  });

  it('honours Retry-After up to the cap, and starts over after any other answer', () => {
    const slowed = release(EMPTY_HOST_STATE, undefined, { status: 429, retryAfterMs: 600_000 }, NOW, BACKOFF).state;
    expect(slowed.pausedUntil).toBe(NOW + 60_000);
    const recovered = release(slowed, undefined, { status: 200 }, NOW + 61_000, BACKOFF);
    expect(recovered).toMatchObject({ changed: true, state: { strikes: 0 } });
    expect(release(recovered.state, undefined, { status: 429 }, NOW + 62_000, BACKOFF).state.pausedUntil).toBe(NOW + 63_000);
  });

  it('takes a 503 as a request to slow down only when it says when to come back', () => {
    expect(release(EMPTY_HOST_STATE, undefined, { status: 503 }, NOW, BACKOFF)).toEqual({ changed: false, state: EMPTY_HOST_STATE });
    expect(release(EMPTY_HOST_STATE, undefined, { status: 503, retryAfterMs: 2_000 }, NOW, BACKOFF).state.pausedUntil).toBe(NOW + 2_000);
  });

  it('writes nothing for an ungoverned load that the host answered normally, or when back-off is off', () => {
    expect(release(EMPTY_HOST_STATE, undefined, { status: 200 }, NOW, BACKOFF).changed).toBe(false);
    expect(release(EMPTY_HOST_STATE, undefined, { status: 429 }, NOW, { ...BACKOFF, enabled: false }).changed).toBe(false);
  });
});

describe(retryAfterMs.name, () => {
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('120', NOW)).toBe(120_000);
    expect(retryAfterMs(['3', '9'], NOW)).toBe(3_000);
    expect(retryAfterMs(new Date(NOW + 5_000).toUTCString(), NOW)).toBe(5_000);
    expect(retryAfterMs(new Date(NOW - 5_000).toUTCString(), NOW)).toBe(0);
    expect(retryAfterMs('soon', NOW)).toBeUndefined();
    expect(retryAfterMs(undefined, NOW)).toBeUndefined();
  });
});
