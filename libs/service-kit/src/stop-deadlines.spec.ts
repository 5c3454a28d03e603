import { settledWithin, StopCountdown, stopDeadlinesOf } from './stop-deadlines';

describe('stop deadlines', () => {
  describe(stopDeadlinesOf.name, () => {
    it('gives work in flight half of SHUTDOWN_TIMEOUT_MS and settles messages by three quarters', () => {
      expect(stopDeadlinesOf(20_000)).toEqual({ drainMs: 10_000, settleMs: 15_000 });
      expect(stopDeadlinesOf(0)).toEqual({ drainMs: 0, settleMs: 0 });
    });
  });

  // Timing alone, on fake timers.
  describe(StopCountdown.name, () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('counts what is left of each mark from its start, never below 0', () => {
      const countdown = StopCountdown.start(stopDeadlinesOf(20_000));
      jest.advanceTimersByTime(4_000);
      expect([countdown.drainLeftMs(), countdown.settleLeftMs()]).toEqual([6_000, 11_000]);
      jest.advanceTimersByTime(8_000);
      expect([countdown.drainLeftMs(), countdown.settleLeftMs()]).toEqual([0, 3_000]);
    });
  });

  describe(settledWithin.name, () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('answers true when the work ends in time, failed or not', async () => {
      await expect(settledWithin(Promise.resolve(), 1_000)).resolves.toBe(true);
      await expect(settledWithin(Promise.reject(new Error('lost')), 1_000)).resolves.toBe(true);
    });

    it('answers false at the deadline when the work goes on', async () => {
      const answer = settledWithin(new Promise(() => undefined), 1_000);
      await jest.advanceTimersByTimeAsync(1_000);
      await expect(answer).resolves.toBe(false);
    });
  });
});
