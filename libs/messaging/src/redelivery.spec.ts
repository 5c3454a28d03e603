import { retryDelayMs } from './redelivery';

describe('redelivery', () => {
  describe(retryDelayMs.name, () => {
    it('waits 1 s after the first delivery fails', () => {
      expect(retryDelayMs(1)).toBe(1_000);
    });

    it('doubles the delay with each further delivery', () => {
      expect([2, 3, 4, 5].map(retryDelayMs)).toEqual([2_000, 4_000, 8_000, 16_000]);
    });

    it('never waits longer than 30 s, however often the message came back', () => {
      expect(retryDelayMs(6)).toBe(30_000);
      expect(retryDelayMs(1_000)).toBe(30_000);
    });

    it('treats a missing or nonsensical delivery count as the first delivery', () => {
      expect(retryDelayMs(0)).toBe(1_000);
      expect(retryDelayMs(-3)).toBe(1_000);
    });
  });
});
