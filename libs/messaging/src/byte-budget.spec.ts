import { ByteBudget } from './byte-budget';

/** Settles pending promise callbacks (no timers involved). */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe(ByteBudget.name, () => {
  describe('acquire', () => {
    it('lets claims through while they fit, and holds the next until bytes come back', async () => {
      const budget = new ByteBudget(100);
      const first = await budget.acquire(60);
      let second: (() => void) | undefined;
      void budget.acquire(60).then((release) => (second = release));
      await settle();
      expect(second).toBeUndefined();
      expect(budget.heldBytes).toBe(60);
      first();
      await settle();
      expect(second).toBeDefined();
      expect(budget.heldBytes).toBe(60);
    });

    it('lets a claim larger than the whole budget through alone once nothing is held', async () => {
      const budget = new ByteBudget(100);
      const small = await budget.acquire(10);
      let large: (() => void) | undefined;
      void budget.acquire(500).then((release) => (large = release));
      await settle();
      expect(large).toBeUndefined();
      small();
      await settle();
      expect(budget.heldBytes).toBe(500);
      large!();
      expect(budget.heldBytes).toBe(0);
    });

    it('serves waiters in order: a small claim does not overtake a large one waiting', async () => {
      const budget = new ByteBudget(100);
      const held = await budget.acquire(50);
      const order: string[] = [];
      void budget.acquire(80).then(() => order.push('large'));
      void budget.acquire(10).then(() => order.push('small'));
      await settle();
      expect(order).toEqual([]);
      held();
      await settle();
      expect(order).toEqual(['large', 'small']);
    });

    it('gives bytes back once however often release is called', async () => {
      const budget = new ByteBudget(100);
      const release = await budget.acquire(40);
      await budget.acquire(30);
      release();
      release();
      expect(budget.heldBytes).toBe(30);
    });
  });

  it('refuses a budget that is not a positive integer', () => {
    expect(() => new ByteBudget(0)).toThrow(/positive integer/);
  });
});
