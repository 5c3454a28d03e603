import { planDispatch, planRefill, type RefillCase } from './dispatch-plan';

const counts = (plan: ReturnType<typeof planDispatch>) =>
  Object.fromEntries(plan.tenants.flatMap((t) => t.runs.map((r) => [r.runId, r.count])));

describe(planDispatch.name, () => {
  it('shares the budget equally between tenants, whatever the size of their runs', () => {
    const plan = planDispatch(
      [
        { runId: 'big', tenantId: 'a', queued: 100_000 },
        { runId: 'small', tenantId: 'b', queued: 1_000 },
      ],
      new Map([
        ['a', 50],
        ['b', 50],
      ]),
      40,
    );
    expect(counts(plan)).toEqual({ big: 20, small: 20 });
    expect(plan.total).toBe(40);
  });

  it('gives a tenant with several runs one share, split round-robin over its runs', () => {
    const plan = planDispatch(
      [
        { runId: 'a1', tenantId: 'a', queued: 100 },
        { runId: 'a2', tenantId: 'a', queued: 100 },
        { runId: 'a3', tenantId: 'a', queued: 100 },
        { runId: 'b1', tenantId: 'b', queued: 100 },
      ],
      new Map([
        ['a', 100],
        ['b', 100],
      ]),
      12,
    );
    expect(counts(plan)).toEqual({ a1: 2, a2: 2, a3: 2, b1: 6 });
  });

  it('never passes a tenant’s room, and gives what is left to the others', () => {
    const plan = planDispatch(
      [
        { runId: 'a1', tenantId: 'a', queued: 100 },
        { runId: 'b1', tenantId: 'b', queued: 100 },
        { runId: 'c1', tenantId: 'c', queued: 100 },
      ],
      new Map([
        ['a', 2],
        ['b', 0],
        ['c', 100],
      ]),
      30,
    );
    expect(counts(plan)).toEqual({ a1: 2, c1: 28 });
  });

  it('stops at the queued tasks and at the budget', () => {
    expect(planDispatch([{ runId: 'a1', tenantId: 'a', queued: 3 }], new Map([['a', 10]]), 100).total).toBe(3);
    expect(planDispatch([{ runId: 'a1', tenantId: 'a', queued: 30 }], new Map([['a', 10]]), 5).total).toBe(5);
    expect(planDispatch([], new Map(), 5)).toEqual({ tenants: [], total: 0 });
  });

  it('moves the first tenant served with the rotation, so a small budget reaches every tenant in turn', () => {
    const runs = ['a', 'b', 'c'].map((t) => ({ runId: `${t}1`, tenantId: t, queued: 10 }));
    const room = new Map(['a', 'b', 'c'].map((t) => [t, 10]));
    const served = [0, 1, 2].map((rotation) => planDispatch(runs, room, 1, rotation).tenants[0].tenantId);
    expect(served).toEqual(['a', 'b', 'c']);
  });
});

describe(planRefill.name, () => {
  const base: RefillCase = {
    inFlight: 100,
    freedSlots: 10,
    window: 1024,
    roundBudget: 256,
    room: 10,
    accountCanPay: true,
    waitingRuns: ['r1'],
    freedByRun: new Map([['r1', 10]]),
  };

  it('claims as many tasks of the tenant’s one waiting run as it freed, within the tenant’s room', () => {
    expect(planRefill(base)).toEqual({ runId: 'r1', count: 10 });
    expect(planRefill({ ...base, room: 4 })).toEqual({ runId: 'r1', count: 4 });
    expect(planRefill({ ...base, room: 40 })).toEqual({ runId: 'r1', count: 10 });
    expect(planRefill({ ...base, room: 0 })).toBeUndefined();
  });

  it('leaves the slots to a round when the tenant has several runs waiting, or none the intake freed', () => {
    expect(planRefill({ ...base, waitingRuns: ['r1', 'r2'] })).toBeUndefined();
    expect(planRefill({ ...base, waitingRuns: [] })).toBeUndefined();
    expect(planRefill({ ...base, waitingRuns: ['r2'] })).toBeUndefined();
  });

  it('leaves them to a round when the account cannot pay (the round fails its runs)', () => {
    expect(planRefill({ ...base, accountCanPay: false })).toBeUndefined();
  });

  it('leaves them to a round when the window would not keep room for a whole round afterwards', () => {
    expect(planRefill({ ...base, inFlight: 1024 - 256 - 10 })).toEqual({ runId: 'r1', count: 10 });
    expect(planRefill({ ...base, inFlight: 1024 - 256 - 9 })).toBeUndefined();
  });
});
