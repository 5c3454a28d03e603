import { randomUUID } from 'node:crypto';
import { createDataSource, Database } from '@trawl/persistence';
import { createMigratedDatabase, TestDatabase } from '@trawl/testing';
import { AdmissionRepository } from '../src/limits/admission.repository';
import { ConcurrencySlotsRepository, SlotLease } from '../src/limits/concurrency-slots.repository';

const LEASE_MS = 60_000;

describe('Fetch admission in Postgres', () => {
  let database: TestDatabase;
  let db: Database;
  let admission: AdmissionRepository;
  let slots: ConcurrencySlotsRepository;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    // As many connections as requests claim at once below: they really run side by side.
    db = new Database(await createDataSource({ url: database.url, poolSize: 12 }).initialize());
    admission = new AdmissionRepository(db);
    slots = new ConcurrencySlotsRepository(db);
  });

  afterAll(async () => {
    await db?.dataSource.destroy();
    await database?.drop();
  });

  /** A tenant that has made its first request, as every tenant but a new one has. */
  async function tenant(concurrency: number, ratePerMinute = 1_000_000): Promise<string> {
    const tenantId = await newTenant(concurrency, ratePerMinute);
    await releaseAll(tenantId, await admitTogether(tenantId, 1));
    return tenantId;
  }

  async function newTenant(concurrency: number, ratePerMinute = 1_000_000): Promise<string> {
    const [row] = await db.query<{ id: string }>(
      `INSERT INTO tenants (name, credits_limit, concurrency, max_active_jobs, period_ends_at, rate_limit_per_minute)
       VALUES ('t', 1000, $1, 3, now() + interval '30 days', $2) RETURNING id`,
      [concurrency, ratePerMinute],
    );
    return row.id;
  }

  async function slotRows(tenantId: string): Promise<Array<{ slot: number; held: boolean }>> {
    return db.query(`SELECT slot, lease_until > now() AS held FROM fetch_slots WHERE tenant_id = $1 ORDER BY slot`, [tenantId]);
  }

  /** One request's admission: what the statement learnt, and the slot it took for `holder`. */
  async function admitOne(tenantId: string, holder: string, releasing: SlotLease[] = []) {
    const batch = await admission.countRequestsAndRead(tenantId, [holder], LEASE_MS, releasing);
    return batch && { ...batch, slot: batch.slots.get(holder) };
  }

  async function admitTogether(tenantId: string, requests: number) {
    return Promise.all(
      Array.from({ length: requests }, async () => {
        const holder = randomUUID();
        const snapshot = await admitOne(tenantId, holder);
        return { holder, slot: snapshot?.slot };
      }),
    );
  }

  async function releaseAll(tenantId: string, held: Array<{ holder: string; slot?: number }>): Promise<void> {
    for (const { holder, slot } of held) if (slot !== undefined) await slots.release({ tenantId, slot, holder });
  }

  it('makes every slot of a new tenant on its first request, so that later requests have rows to claim', async () => {
    const tenantId = await newTenant(4);
    const [first] = await admitTogether(tenantId, 1);
    expect(first.slot).toBe(1);
    expect(await slotRows(tenantId)).toEqual([
      { slot: 1, held: true },
      { slot: 2, held: false },
      { slot: 3, held: false },
      { slot: 4, held: false },
    ]);
    await db.query(`UPDATE tenants SET concurrency = 6 WHERE id = $1`, [tenantId]);
    await admitTogether(tenantId, 3); // slots 2–4 are free rows: claimed as they are
    const [fifth] = await admitTogether(tenantId, 1); // none free: the raised limit's rows are made
    expect(fifth.slot).toBe(5);
    expect((await slotRows(tenantId)).map((r) => r.slot)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('hands requests that arrive together different slots, none of them lost to a race', async () => {
    const tenantId = await tenant(8);
    // Rounds at the limit: every slot is claimed by someone at the same moment, the case where
    // choosing among free slots by snapshot made requests collide and fall back.
    for (let round = 0; round < 10; round += 1) {
      const held = await admitTogether(tenantId, 8);
      expect(held.map((h) => h.slot).sort((x, y) => (x ?? 0) - (y ?? 0))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      await releaseAll(tenantId, held);
    }
  });

  it('never hands out more slots than the limit, however many ask at once', async () => {
    const tenantId = await tenant(5);
    const held = await admitTogether(tenantId, 12);
    const taken = held.filter((h) => h.slot !== undefined);
    expect(taken).toHaveLength(5);
    expect(new Set(taken.map((h) => h.slot)).size).toBe(5);
    const [{ n }] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM fetch_slots WHERE tenant_id = $1 AND lease_until > now()`,
      [tenantId],
    );
    expect(n).toBe(5);
    await releaseAll(tenantId, held);
  });

  it('takes no slot for a request over the rate limit, and no slot above a lowered limit', async () => {
    const limited = await tenant(4, 3); // its first request counts: two more this minute
    const held = await admitTogether(limited, 2);
    expect(held.every((h) => h.slot !== undefined)).toBe(true);
    await releaseAll(limited, held);
    expect((await admitOne(limited, randomUUID()))?.slot).toBeUndefined();

    const lowered = await tenant(4);
    await releaseAll(lowered, await admitTogether(lowered, 4)); // rows for slots 1–4 exist, all free
    await db.query(`UPDATE tenants SET concurrency = 2 WHERE id = $1`, [lowered]);
    const after = await admitTogether(lowered, 4);
    expect(
      after
        .map((h) => h.slot)
        .filter((s) => s !== undefined)
        .sort(),
    ).toEqual([1, 2]);
  });

  it('tryAcquire claims by the same rule: distinct slots up to the limit, then none', async () => {
    const tenantId = await tenant(6);
    const taken = await Promise.all(Array.from({ length: 9 }, () => slots.tryAcquire(tenantId, 6, randomUUID(), LEASE_MS)));
    const got = taken.filter((t) => t !== undefined).map((t) => t.slot);
    expect(got.sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await slots.tryAcquire(tenantId, 6, randomUUID(), LEASE_MS)).toBeUndefined();
  });
  it("frees the slots it is given (any tenant's, only while their holder holds them) as it admits", async () => {
    const other = await tenant(3);
    const mine = await tenant(3);
    // Admitted at once, either may get either slot: o1 is the one on slot 1.
    const [o1, o2] = (await admitTogether(other, 2)).sort((x, y) => (x.slot ?? 0) - (y.slot ?? 0));
    const [m1] = await admitTogether(mine, 1);
    const stale = { tenantId: other, slot: o2.slot ?? 0, holder: randomUUID() }; // a holder that no longer holds it
    const snapshot = await admitOne(mine, randomUUID(), [
      { tenantId: other, slot: o1.slot ?? 0, holder: o1.holder },
      { tenantId: mine, slot: m1.slot ?? 0, holder: m1.holder },
      stale,
    ]);
    expect(snapshot?.slot).toBe(2); // slot 1 was still held in the statement's own view
    expect(await slotRows(other)).toEqual([
      { slot: 1, held: false },
      { slot: 2, held: true },
      { slot: 3, held: false },
    ]);
    expect(await slotRows(mine)).toEqual([
      { slot: 1, held: false },
      { slot: 2, held: true },
      { slot: 3, held: false },
    ]);
    await slots.releaseMany([
      { tenantId: other, slot: o2.slot ?? 0, holder: o2.holder },
      { tenantId: mine, slot: 2, holder: 'not its holder' },
    ]);
    expect((await slotRows(other)).every((r) => !r.held)).toBe(true);
    expect((await slotRows(mine)).map((r) => r.held)).toEqual([false, true, false]);
  });
  describe('several requests of a tenant in one statement', () => {
    it('counts them all and gives each holder its own slot, the first holders first', async () => {
      const tenantId = await tenant(5);
      const [busy] = await admitTogether(tenantId, 1);
      const holders = [randomUUID(), randomUUID(), randomUUID()];
      const batch = await admission.countRequestsAndRead(tenantId, holders, LEASE_MS);
      expect(batch?.requestsThisMinute).toBe(5); // the tenant's first, busy, and these three
      expect(batch?.slotsInUse).toBe(1);
      expect([...(batch?.slots.keys() ?? [])].sort()).toEqual([...holders].sort());
      expect(new Set(batch?.slots.values()).size).toBe(3);
      expect([...(batch?.slots.values() ?? [])]).not.toContain(busy.slot);
      // One left: of three more, the first gets it.
      const more = [randomUUID(), randomUUID(), randomUUID()];
      const second = await admission.countRequestsAndRead(tenantId, more, LEASE_MS);
      expect([...(second?.slots.keys() ?? [])]).toEqual(more.slice(0, 1));
    });

    it('claims slots only for the holders the minute still allows', async () => {
      const tenantId = await tenant(10, 5); // one request this minute already
      const holders = Array.from({ length: 6 }, () => randomUUID());
      const batch = await admission.countRequestsAndRead(tenantId, holders, LEASE_MS);
      expect(batch?.requestsThisMinute).toBe(7);
      expect([...(batch?.slots.keys() ?? [])].sort()).toEqual(holders.slice(0, 4).sort());
    });

    it("makes a new tenant's slot rows and hands the lowest out in order", async () => {
      const tenantId = await newTenant(4);
      const holders = [randomUUID(), randomUUID()];
      const batch = await admission.countRequestsAndRead(tenantId, holders, LEASE_MS);
      expect(holders.map((h) => batch?.slots.get(h))).toEqual([1, 2]);
      expect(await slotRows(tenantId)).toEqual([
        { slot: 1, held: true },
        { slot: 2, held: true },
        { slot: 3, held: false },
        { slot: 4, held: false },
      ]);
    });

    it('uses free rows first, then makes the missing ones, when a raised limit leaves too few', async () => {
      const tenantId = await tenant(2);
      await db.query(`UPDATE tenants SET concurrency = 4 WHERE id = $1`, [tenantId]);
      const holders = [randomUUID(), randomUUID(), randomUUID()];
      const batch = await admission.countRequestsAndRead(tenantId, holders, LEASE_MS);
      expect(holders.map((h) => batch?.slots.get(h))).toEqual([1, 2, 3]);
      expect((await slotRows(tenantId)).map((r) => r.held)).toEqual([true, true, true, false]);
    });
  });
});
