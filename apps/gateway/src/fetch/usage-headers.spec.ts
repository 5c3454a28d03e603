import { UsageHeaders } from './usage-headers';

describe(UsageHeaders.name, () => {
  describe('toHeaders', () => {
    it('sends the request id and a zero cost before anything is known', () => {
      expect(new UsageHeaders('r1', 0.0001).toHeaders()).toEqual({
        'x-request-id': 'r1',
        'x-request-credits': '0',
        'x-request-cost': '0',
      });
    });

    it('prices credits without float noise and never reports negative remaining slots', () => {
      const usage = new UsageHeaders('r1', 0.0001);
      usage.concurrency(5, 7);
      usage.billed(25);
      expect(usage.toHeaders()).toEqual({
        'x-request-id': 'r1',
        'x-request-credits': '25',
        'x-request-cost': '0.0025',
        'concurrency-limit': '5',
        'concurrency-remaining': '0',
      });
    });
  });
});
