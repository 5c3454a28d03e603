import type { Account } from '../tenants/account';
import { testAccount } from '../tenants/account.test-support';
import { Allotments, type StatementView } from './allotments';

const TENANT = 't1';
const WINDOW_START = 1_800_000_000_000;

function account(fields: Partial<Account> = {}): Account {
  return testAccount({ tenantId: TENANT, creditsLimit: 100_000, concurrency: 20, rateLimitPerMinute: 1_000, ...fields });
}

function setup(options: { accountMaxAgeMs?: number; idleMs?: number; reusableMs?: number } = {}) {
  let now = 1_000_000;
  const allotments = new Allotments({
    accountMaxAgeMs: options.accountMaxAgeMs ?? 1_000,
    idleMs: options.idleMs ?? 500,
    reusableMs: options.reusableMs ?? 20_000,
    maxRequests: 32,
    now: () => now,
  });
  const view = (fields: Partial<StatementView> = {}): StatementView => ({
    account: account(),
    windowStartMs: WINDOW_START,
    windowEndsAt: now + 30_000,
    requestsThisMinute: 10,
    granted: 4,
    othersInUse: 0,
    ...fields,
  });
  const needs = { credits: 1, pendingCredits: 0, slotsHeldHere: 0 };
  const lease = (slot: number) => ({ tenantId: TENANT, slot, holder: `h${slot}` });
  return {
    allotments,
    view,
    needs,
    lease,
    advance: (ms: number) => (now += ms),
    now: () => now,
  };
}

describe(Allotments.name, () => {
  it('admits no request here before a statement has set some aside, then exactly as many as it did', () => {
    const { allotments, view, needs, now } = setup();
    expect(allotments.take(TENANT, needs)).toBeUndefined();
    allotments.learnt(TENANT, view({ granted: 3 }), 1, now());
    const taken = [1, 2, 3, 4].map(() => allotments.take(TENANT, needs));
    expect(taken.map((admission) => admission !== undefined)).toEqual([true, true, true, false]);
    // The window's count already held them all; each is told where it stands in it.
    expect(taken.slice(0, 3).map((admission) => admission?.requestsThisMinute)).toEqual([8, 9, 10]);
  });

  it('hands a request the slot a roomy request of the tenant left, and claims none when none waits', () => {
    const { allotments, view, needs, lease, now } = setup();
    allotments.learnt(TENANT, view({ granted: 4 }), 1, now());
    expect(allotments.keep({ lease: lease(3), leaseSetAt: now() }, 2, 20)).toBe(true);
    expect(allotments.take(TENANT, needs)?.slot).toEqual({ lease: lease(3), leaseSetAt: now() });
    expect(allotments.take(TENANT, needs)).toMatchObject({ slot: undefined });
  });

  it('sends the request to Postgres once the account it read is too old or its window has ended', () => {
    const stale = setup();
    stale.allotments.learnt(TENANT, stale.view(), 1, stale.now());
    stale.advance(1_001);
    expect(stale.allotments.take(TENANT, stale.needs)).toBeUndefined();

    const ended = setup({ accountMaxAgeMs: 60_000 });
    ended.allotments.learnt(TENANT, ended.view({ windowEndsAt: ended.now() + 10 }), 1, ended.now());
    ended.advance(10);
    expect(ended.allotments.take(TENANT, ended.needs)).toBeUndefined();
    // Set aside in a window that has ended: nothing to ask for, nothing to give back.
    expect(ended.allotments.wanted(TENANT)).toBe(3);
    expect(ended.allotments.giveBack(TENANT).requests).toEqual([]);
  });

  it('sends every request of a tenant near a limit to Postgres: half its slots, half its window, or its credits', () => {
    const near = (fields: Partial<StatementView>, slotsHeldHere = 0, pendingCredits = 0) => {
      const { allotments, view, needs, now } = setup();
      allotments.learnt(TENANT, view(fields), 1, now());
      return allotments.take(TENANT, { ...needs, slotsHeldHere, pendingCredits }) === undefined;
    };
    expect(near({})).toBe(false);
    expect(near({ othersInUse: 6 }, 3)).toBe(false); // 10 of 20 with this one
    expect(near({ othersInUse: 6 }, 4)).toBe(true);
    expect(near({ requestsThisMinute: 501 })).toBe(true);
    // Credits for twice what is set aside must be left: 100,000 − 99,992 = 8 = 2 × 4.
    expect(near({ account: account({ creditsUsed: 99_990 }) })).toBe(false);
    expect(near({ account: account({ creditsUsed: 99_990 }) }, 0, 3)).toBe(true);
  });

  it('keeps a slot only for a roomy tenant, within its limit, with its lease fresh; one idle too long goes back', () => {
    const { allotments, view, lease, now, advance } = setup({ idleMs: 500, reusableMs: 20_000 });
    expect(allotments.keep({ lease: lease(1), leaseSetAt: now() }, 1, 20)).toBe(false); // no allotment of the tenant
    allotments.learnt(TENANT, view(), 1, now());
    expect(allotments.keep({ lease: lease(1), leaseSetAt: now() }, 11, 20)).toBe(false); // over half in use
    expect(allotments.keep({ lease: lease(21), leaseSetAt: now() }, 1, 20)).toBe(false); // above a lowered limit
    expect(allotments.keep({ lease: lease(2), leaseSetAt: now() - 20_001 }, 1, 20)).toBe(false);
    expect(allotments.keep({ lease: lease(3), leaseSetAt: now() }, 1, 20)).toBe(true);
    advance(300);
    expect(allotments.keep({ lease: lease(4), leaseSetAt: now() }, 1, 20)).toBe(true);
    expect(allotments.sweep()).toEqual([]);
    advance(200);
    expect(allotments.sweep()).toEqual([lease(3)]);
    expect(allotments.idleLeases()).toEqual([lease(4)]);
  });

  it('hands out no idle slot whose lease was set too long ago, until it is renewed', () => {
    const { allotments, view, lease, now, advance } = setup({ idleMs: 60_000, reusableMs: 1_000 });
    allotments.learnt(TENANT, view(), 1, now());
    allotments.keep({ lease: lease(5), leaseSetAt: now() }, 1, 20);
    advance(1_001);
    expect(allotments.takeIdle(TENANT, 20)).toBeUndefined();
    allotments.renewed([lease(5)], now());
    expect(allotments.takeIdle(TENANT, 20)).toEqual({ lease: lease(5), leaseSetAt: now() });
  });

  it('asks the next statement to set aside twice what was used here since the last, and one more, up to its most, less what is left', () => {
    const { allotments, view, needs, now } = setup({ accountMaxAgeMs: 60_000 });
    expect(allotments.wanted(TENANT)).toBe(1);
    allotments.learnt(TENANT, view({ granted: 1 }), 1, now());
    expect(allotments.wanted(TENANT)).toBe(2); // 2 × 1 + 1, less the 1 left
    allotments.take(TENANT, needs);
    expect(allotments.wanted(TENANT)).toBe(5);
    allotments.learnt(TENANT, view({ granted: 5 }), 20, now());
    expect(allotments.wanted(TENANT)).toBe(27); // 32 at most, 5 left
  });

  it('gives back, when asked, the idle slots and the requests set aside in a window still open', () => {
    const { allotments, view, lease, now } = setup();
    allotments.learnt(TENANT, view({ granted: 4 }), 1, now());
    allotments.keep({ lease: lease(2), leaseSetAt: now() }, 1, 20);
    expect(allotments.giveBack(TENANT)).toEqual({
      leases: [lease(2)],
      requests: [{ tenantId: TENANT, windowStartMs: WINDOW_START, requests: 4 }],
    });
    expect(allotments.giveBack(TENANT)).toEqual({ leases: [], requests: [] });
    expect(allotments.giveBack('another')).toEqual({ leases: [], requests: [] });
  });

  it('takes nothing from a statement that started before the tenant was given back (its account may have changed since)', () => {
    const { allotments, view, needs, now, advance } = setup();
    const started = now();
    advance(1);
    allotments.giveBack(TENANT);
    allotments.learnt(TENANT, view({ granted: 4 }), 1, started);
    expect(allotments.take(TENANT, needs)).toBeUndefined();
    advance(1);
    allotments.learnt(TENANT, view({ granted: 4 }), 1, now());
    expect(allotments.take(TENANT, needs)).toBeDefined();
  });

  it('adds what an earlier statement set aside without letting its older view replace the newer one', () => {
    const { allotments, view, needs, now, advance } = setup();
    const started = now();
    advance(5);
    allotments.learnt(TENANT, view({ requestsThisMinute: 40, granted: 2 }), 1, now());
    allotments.learnt(TENANT, view({ requestsThisMinute: 20, granted: 3 }), 1, started);
    expect(allotments.take(TENANT, needs)?.requestsThisMinute).toBe(36); // 40, 4 still set aside
  });

  it('admits nothing here and asks for nothing when turned off', () => {
    const { allotments, view, needs, now } = setup({ accountMaxAgeMs: 0 });
    allotments.learnt(TENANT, view(), 1, now());
    expect(allotments.wanted(TENANT)).toBe(0);
    expect(allotments.take(TENANT, needs)).toBeUndefined();
  });
});
