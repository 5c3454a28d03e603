import type { Account } from '../tenants/account';
import { testAccount } from '../tenants/account.test-support';
import { HeadStarts, HeadStartNeeds } from './head-start';

const TENANT = 't1';

function account(fields: Partial<Account> = {}): Account {
  return testAccount({ tenantId: TENANT, creditsLimit: 1_000, concurrency: 20, features: ['js_render'], ...fields });
}

const basic: HeadStartNeeds = { features: [], credits: 1, pendingCredits: 0, slotsHeldHere: 0 };

/** One admission that started and returned showing `snapshot`. */
function admit(
  headStarts: HeadStarts,
  snapshot: { account: Account; requestsThisMinute: number; windowResetsInMs?: number },
  slotsInUse: number,
) {
  const underWay = headStarts.admissionStarted(TENANT);
  underWay.admitted({ windowResetsInMs: 30_000, slotsInUse: 0, ...snapshot }, slotsInUse);
  underWay.end();
}

function setup(fields: Partial<Account> = {}, seen: { slotsInUse?: number; requestsThisMinute?: number } = {}) {
  let now = 1_000_000;
  const headStarts = new HeadStarts({ maxAgeMs: 2_000, maxTenants: 10, now: () => now });
  const admitted = (more: Partial<Account> = {}, slotsInUse = seen.slotsInUse ?? 1, requestsThisMinute = seen.requestsThisMinute ?? 1) =>
    admit(headStarts, { account: account({ ...fields, ...more }), requestsThisMinute }, slotsInUse);
  admitted();
  return { headStarts, admitted, advance: (ms: number) => (now += ms) };
}

describe(HeadStarts.name, () => {
  it('lets a request of a recently admitted tenant far from its limits start, with the account last seen', () => {
    const { headStarts } = setup();
    expect(headStarts.startable(TENANT, basic)).toMatchObject({ tenantId: TENANT, concurrency: 20 });
    expect(headStarts.startable('another tenant', basic)).toBeUndefined();
  });

  it('forgets what an admission showed after maxAgeMs', () => {
    const { headStarts, advance } = setup();
    advance(1_999);
    expect(headStarts.startable(TENANT, basic)).toBeDefined();
    advance(1);
    expect(headStarts.startable(TENANT, basic)).toBeUndefined();
  });

  it('keeps a tenant within half its concurrency, counting the admissions still under way here', () => {
    const { headStarts } = setup({}, { slotsInUse: 8 });
    // 8 held + this one = 9 of 20.
    expect(headStarts.startable(TENANT, basic)).toBeDefined();
    const first = headStarts.admissionStarted(TENANT);
    // 8 held + one under way + this one = 10 of 20: still half.
    expect(headStarts.startable(TENANT, basic)).toBeDefined();
    const second = headStarts.admissionStarted(TENANT);
    expect(headStarts.startable(TENANT, basic)).toBeUndefined();
    second.end();
    second.end();
    expect(headStarts.startable(TENANT, basic)).toBeDefined();
    first.end();
  });

  it('counts the slots this replica holds when its last snapshot shows fewer', () => {
    const { headStarts } = setup({}, { slotsInUse: 1 });
    // 9 held here + this one = 10 of 20.
    expect(headStarts.startable(TENANT, { ...basic, slotsHeldHere: 9 })).toBeDefined();
    expect(headStarts.startable(TENANT, { ...basic, slotsHeldHere: 10 })).toBeUndefined();
  });

  it('keeps the view of the admission Postgres ran last when one it ran earlier returns after it', () => {
    const { headStarts, advance } = setup({}, { requestsThisMinute: 1 });
    const first = headStarts.admissionStarted(TENANT);
    const second = headStarts.admissionStarted(TENANT);
    // The second to start ran first in Postgres (the rate row counts it 2nd), and returns first.
    second.admitted({ account: account(), requestsThisMinute: 2, windowResetsInMs: 30_000, slotsInUse: 0 }, 1);
    second.end();
    advance(3);
    first.admitted({ account: account(), requestsThisMinute: 3, windowResetsInMs: 29_990, slotsInUse: 0 }, 12);
    first.end();
    expect(headStarts.startable(TENANT, basic)).toBeUndefined();
    // An older view arriving late is ignored.
    const late = headStarts.admissionStarted(TENANT);
    late.admitted({ account: account(), requestsThisMinute: 2, windowResetsInMs: 29_980, slotsInUse: 0 }, 1);
    late.end();
    expect(headStarts.startable(TENANT, basic)).toBeUndefined();
  });

  it('takes the view of a new rate window over the last of the old one', () => {
    let now = 0;
    const headStarts = new HeadStarts({ maxAgeMs: 2_000, maxTenants: 10, now: () => now });
    admit(headStarts, { account: account(), requestsThisMinute: 40, windowResetsInMs: 500 }, 12);
    expect(headStarts.startable(TENANT, basic)).toBeUndefined();
    now = 600;
    admit(headStarts, { account: account(), requestsThisMinute: 1, windowResetsInMs: 59_900 }, 1);
    expect(headStarts.startable(TENANT, basic)).toBeDefined();
    // The old window's last admission, returning late, is older.
    admit(headStarts, { account: account(), requestsThisMinute: 41, windowResetsInMs: 0 }, 12);
    expect(headStarts.startable(TENANT, basic)).toBeDefined();
  });

  it('keeps a tenant within half its rate window', () => {
    // 49 this minute + this one = 50 of 100.
    expect(setup({ rateLimitPerMinute: 100 }, { requestsThisMinute: 49 }).headStarts.startable(TENANT, basic)).toBeDefined();
    expect(setup({ rateLimitPerMinute: 100 }, { requestsThisMinute: 50 }).headStarts.startable(TENANT, basic)).toBeUndefined();
  });

  it('counts a window that has ended as empty', () => {
    let now = 0;
    const headStarts = new HeadStarts({ maxAgeMs: 2_000, maxTenants: 10, now: () => now });
    admit(headStarts, { account: account(), requestsThisMinute: 90, windowResetsInMs: 500 }, 1);
    expect(headStarts.startable(TENANT, basic)).toBeUndefined();
    now = 500;
    expect(headStarts.startable(TENANT, basic)).toBeDefined();
  });

  it('asks for twice the credits the coming requests may cost, unwritten charges counted', () => {
    const { headStarts } = setup({ creditsLimit: 100, creditsUsed: 50 });
    expect(headStarts.startable(TENANT, { features: ['js_render'], credits: 25, pendingCredits: 0, slotsHeldHere: 0 })).toBeDefined();
    expect(headStarts.startable(TENANT, { features: ['js_render'], credits: 25, pendingCredits: 1, slotsHeldHere: 0 })).toBeUndefined();
    headStarts.admissionStarted(TENANT);
    expect(headStarts.startable(TENANT, { features: [], credits: 12, pendingCredits: 0, slotsHeldHere: 0 })).toBeDefined();
    expect(headStarts.startable(TENANT, { features: [], credits: 13, pendingCredits: 0, slotsHeldHere: 0 })).toBeUndefined();
  });

  it('never starts what the plan or the account state refuses', () => {
    expect(setup().headStarts.startable(TENANT, { ...basic, features: ['premium_proxy'] })).toBeUndefined();
    expect(setup({ subscriptionStatus: 'cancelled' }).headStarts.startable(TENANT, basic)).toBeUndefined();
    expect(setup({ emailVerified: false }).headStarts.startable(TENANT, basic)).toBeUndefined();
    expect(setup({ products: ['batch'] }).headStarts.startable(TENANT, basic)).toBeUndefined();
  });

  it('judges by the newest admission, a refused one too', () => {
    const { headStarts, admitted } = setup();
    admitted({ subscriptionStatus: 'cancelled' });
    expect(headStarts.startable(TENANT, basic)).toBeUndefined();
    admitted();
    expect(headStarts.startable(TENANT, basic)).toBeDefined();
  });

  it('never starts anything early when maxAgeMs is 0', () => {
    const headStarts = new HeadStarts({ maxAgeMs: 0, maxTenants: 10 });
    admit(headStarts, { account: account(), requestsThisMinute: 1 }, 1);
    expect(headStarts.startable(TENANT, basic)).toBeUndefined();
  });
});
