import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { scheduleSchema } from '@trawl/contracts';
import { ActiveJobsRepository, Database, RunsRepository, Sql } from '@trawl/persistence';
import { ManualClock, nextDueOnStateChange } from '@trawl/scheduling';
import { createMigratedDatabase, sqlOn, testPool, TestDatabase, uniqueSuffix, waitFor } from '@trawl/testing';
import { BatchRunStarter } from '../src/runs/batch-run-starter';
import { ScheduleFiringService } from '../src/schedules/schedule-firing.service';
import {
  createSchedule,
  createTenant,
  createTestRunsTable,
  firingsOf,
  runsOf,
  SchedulerInstance,
  startInstance,
  TableRunStarter,
} from './support/scheduler-harness';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe(ScheduleFiringService.name, () => {
  let database: TestDatabase;
  let pool: Pool;
  let instances: SchedulerInstance[] = [];
  let leaseName: string;
  let runStarter: TableRunStarter;

  beforeAll(async () => {
    database = await createMigratedDatabase();
    pool = testPool(database.url, 3);
    await createTestRunsTable(pool);
  });

  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  beforeEach(() => {
    // A lease of its own per test, so one test's leader is not the next one's.
    leaseName = `test.schedules.${uniqueSuffix()}`;
    runStarter = new TableRunStarter();
  });

  afterEach(async () => {
    await Promise.all(instances.map((instance) => instance.crash()));
    instances = [];
    // Every replica fires every tenant's due schedules: leave none active for the next test.
    await pool.query(`UPDATE job_schedules SET state = 'paused', next_due_at = NULL`);
  });

  async function replica(name: string, clock: ManualClock, overrides = {}): Promise<SchedulerInstance> {
    const instance = await startInstance(database.url, leaseName, name, clock, runStarter, overrides);
    instances.push(instance);
    return instance;
  }

  const sql = sqlOn(() => pool);

  it('fires each due time exactly once with two replicas electing and firing side by side, across a DST change', async () => {
    const clock = new ManualClock('2026-03-28T00:00:00Z');
    const [a, b] = [await replica('a', clock), await replica('b', clock)];
    const tenantId = await createTenant(sql);
    const hourly = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, clock.now());
    // Sunday 29 March 2026 in Paris: 01:00 CET, 02:00 does not exist, 03:00 CEST is the same instant.
    const sundayNight = await createSchedule(
      sql,
      tenantId,
      { calendar: { times_of_day: ['01:00', '02:00', '03:00'], cadence: { weekly: { days: ['sun'] } } }, timezone: 'Europe/Paris' },
      clock.now(),
    );
    const once = await createSchedule(sql, tenantId, { at: '2026-03-29T09:00', timezone: 'Europe/Paris' }, clock.now());

    for (let step = 1; step <= 2 * 24 * 4; step++) {
      clock.advance(15 * MINUTE);
      await Promise.all([a.election.electOnce(), b.election.electOnce()]);
      await Promise.all([a.firings.fireDueOnce(), b.firings.fireDueOnce()]);
      // A rolling restart every 5 hours: the leader hands over and both race for the lease.
      if (step % 20 === 0) await Promise.all([a.election.release(), b.election.release()]);
    }

    const hourlyFirings = await firingsOf(sql, tenantId, hourly);
    expect(hourlyFirings.map((f) => f.due_at)).toEqual(
      Array.from({ length: 48 }, (_, i) => new Date(Date.parse('2026-03-28T01:00:00Z') + i * HOUR).toISOString()),
    );
    expect(hourlyFirings.every((f) => f.outcome === 'started' && f.run_id)).toBe(true);
    expect(new Set(hourlyFirings.map((f) => f.leader_epoch)).size).toBeGreaterThan(1);
    expect((await runsOf(sql, tenantId, hourly)).map((r) => r.due_at)).toEqual(hourlyFirings.map((f) => f.due_at));

    expect((await firingsOf(sql, tenantId, sundayNight)).map((f) => [f.due_at, f.outcome])).toEqual([
      ['2026-03-29T00:00:00.000Z', 'started'],
      ['2026-03-29T01:00:00.000Z', 'started'],
    ]);
    expect(await runsOf(sql, tenantId, sundayNight)).toHaveLength(2);
    expect((await firingsOf(sql, tenantId, once)).map((f) => [f.due_at, f.outcome])).toEqual([['2026-03-29T07:00:00.000Z', 'started']]);
    const [onceRow] = await sql.query<{ next_due_at: Date | null }>(`SELECT next_due_at FROM job_schedules WHERE job_id = $1`, [once]);
    expect(onceRow?.next_due_at).toBeNull();
  }, 60_000);

  it('refuses the writes of a deposed leader that has not noticed yet', async () => {
    const clockA = new ManualClock('2026-06-01T00:00:00Z');
    const clockB = new ManualClock('2026-06-01T00:00:00Z');
    const [a, b] = [await replica('a', clockA), await replica('b', clockB)];
    const tenantId = await createTenant(sql);
    // Created an hour ago: due now.
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, new Date('2026-05-31T23:00:00Z'));
    expect((await a.election.electOnce())?.epoch).toBe(1);
    expect(await b.election.electOnce()).toBeUndefined();

    // A stalls (a long GC pause, a frozen VM, a clock running late) while time moves on for B, whose
    // view of the lease has expired: B takes it.
    clockB.advance(30_000);
    expect((await b.election.electOnce())?.epoch).toBe(2);
    // A still believes it leads and tries to fire: the epoch guard refuses, A learns it was deposed.
    expect(a.election.current()?.epoch).toBe(1);
    expect(await a.firings.fireDueOnce()).toEqual([]);
    expect(a.election.current()).toBeUndefined();
    expect(await firingsOf(sql, tenantId, jobId)).toEqual([]);

    const fired = await b.firings.fireDueOnce();
    expect(fired.map((f) => f.fired?.outcome)).toEqual(['started']);
    expect(await firingsOf(sql, tenantId, jobId)).toMatchObject([
      { due_at: '2026-06-01T00:00:00.000Z', outcome: 'started', leader_epoch: 2 },
    ]);
  });

  it('makes a takeover wait until the leader’s firing in progress has committed', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const [a, b] = [await replica('a', clock), await replica('b', clock)];
    const tenantId = await createTenant(sql);
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, clock.now());
    clock.advance(HOUR);
    await a.election.electOnce();

    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const entered = new Promise<void>((resolve) => (inside = resolve));
    runStarter.beforeStart = async () => {
      inside();
      await held;
    };
    const firing = a.firings.fireDueOnce();
    await entered;
    // The lease has expired on the clock, but A's transaction holds the epoch: B must wait for it.
    clock.advance(20_000);
    let takenOver = false;
    const takeover = b.election.electOnce().then((lease) => ((takenOver = true), lease));
    await waitFor(
      async () => {
        const [row] = await sql.query<{ waiting: string }>(
          `SELECT count(*) AS waiting FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`,
          ['test-scheduler-b'],
        );
        return Number(row?.waiting) > 0;
      },
      { what: "B's acquire waiting on the lease row" },
    );
    expect(takenOver).toBe(false);
    release();
    runStarter.beforeStart = undefined;
    expect((await firing).map((f) => f.fired?.outcome)).toEqual(['started']);
    expect((await takeover)?.epoch).toBe(2);
    expect(await firingsOf(sql, tenantId, jobId)).toMatchObject([{ outcome: 'started', leader_epoch: 1 }]);
  });

  it('lets another replica take over a crashed leader and fire what is due per the missed-firing policy', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const [a, b] = [await replica('a', clock), await replica('b', clock)];
    const tenantId = await createTenant(sql);
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, clock.now());
    await a.election.electOnce();
    await b.election.electOnce();
    clock.set('2026-06-01T01:00:01Z');
    await a.election.electOnce();
    await a.firings.fireDueOnce();
    await a.crash();

    // B cannot take the lease before it expires.
    clock.advance(10_000);
    expect(await b.election.electOnce()).toBeUndefined();
    // Three and a half hours later: 02:00 and 03:00 are too old to matter, 04:00 is 30 minutes late.
    clock.set('2026-06-01T04:30:00Z');
    expect((await b.election.electOnce())?.epoch).toBe(2);
    await b.firings.fireDueOnce();

    expect((await firingsOf(sql, tenantId, jobId)).map((f) => [f.due_at, f.outcome, f.leader_epoch])).toEqual([
      ['2026-06-01T01:00:00.000Z', 'started', 1],
      ['2026-06-01T02:00:00.000Z', 'skipped_missed', 2],
      ['2026-06-01T03:00:00.000Z', 'skipped_missed', 2],
      ['2026-06-01T04:00:00.000Z', 'started', 2],
    ]);
    expect(await runsOf(sql, tenantId, jobId)).toHaveLength(2);
    const metrics = await b.registry.getSingleMetricAsString('trawl_schedule_firings_total');
    expect(metrics).toContain('trawl_schedule_firings_total{outcome="skipped_missed"} 2');
    expect(metrics).toContain('trawl_schedule_firings_total{outcome="started"} 1');
    expect(await b.registry.getSingleMetricAsString('trawl_schedule_lag_seconds')).toContain('trawl_schedule_lag_seconds_sum 1800');
    expect((await b.registry.getSingleMetric('trawl_scheduler_leader')!.get()).values[0]?.value).toBe(1);

    clock.set('2026-06-01T05:00:00Z');
    await b.election.electOnce();
    await b.firings.fireDueOnce();
    expect((await firingsOf(sql, tenantId, jobId)).at(-1)).toMatchObject({ due_at: '2026-06-01T05:00:00.000Z', outcome: 'started' });
  });

  it('skips a due time while the previous run still runs, and fires again once it has ended', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const leader = await replica('a', clock);
    const tenantId = await createTenant(sql);
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 2, unit: 'hours' } }, clock.now());
    runStarter.completeAtOnce = false;
    for (const time of ['2026-06-01T02:00:00Z', '2026-06-01T04:00:00Z']) {
      clock.set(time);
      await leader.election.electOnce();
      await leader.firings.fireDueOnce();
    }
    await pool.query(`UPDATE test_runs SET status = 'completed' WHERE job_id = $1`, [jobId]);
    clock.set('2026-06-01T06:00:00Z');
    await leader.election.electOnce();
    await leader.firings.fireDueOnce();

    expect((await firingsOf(sql, tenantId, jobId)).map((f) => [f.due_at, f.outcome, Boolean(f.run_id)])).toEqual([
      ['2026-06-01T02:00:00.000Z', 'started', true],
      ['2026-06-01T04:00:00.000Z', 'skipped_previous_running', false],
      ['2026-06-01T06:00:00.000Z', 'started', true],
    ]);
  });

  it('starts no second run when a rerun commits between the firing’s in-flight check and its run start', async () => {
    // The gateway's rerun as it writes it: tenant lock, job lock, in-flight check, then the run.
    const rerun = (db: Database, tenantId: string, jobId: string) =>
      db.transaction(async (tx) => {
        await new ActiveJobsRepository().lockTenantAndCount(tx, tenantId);
        await new RunsRepository().lockJob(tx, tenantId, jobId);
        if (await new RunsRepository().runInFlight(tx, tenantId, jobId)) throw new Error('rerun refused: a run is in flight');
        await new RunsRepository().insertRun(tx, { id: randomUUID(), jobId, tenantId, kind: 'rerun', total: 0, traceParent: undefined });
      });
    let interleave: (() => Promise<void>) | undefined;
    class InterleavingStarter extends BatchRunStarter {
      override async runInFlight(tx: Sql, job: { tenantId: string; jobId: string }) {
        const seen = await super.runInFlight(tx, job);
        const before = interleave;
        interleave = undefined;
        await before?.();
        return seen;
      }
    }
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const leader = await startInstance(database.url, leaseName, 'a', clock, new InterleavingStarter());
    instances.push(leader);
    const tenantId = await createTenant(sql);
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, clock.now());
    // On another connection of the same pool, while the firing's transaction is open and has looked.
    interleave = () => rerun(leader.db, tenantId, jobId);
    clock.set('2026-06-01T01:00:00Z');
    await leader.election.electOnce();
    const [result] = await leader.firings.fireDueOnce();

    expect(interleave).toBeUndefined();
    expect(result?.fired?.outcome).toBe('skipped_previous_running');
    expect(await firingsOf(sql, tenantId, jobId)).toMatchObject([
      { due_at: '2026-06-01T01:00:00.000Z', outcome: 'skipped_previous_running', run_id: null },
    ]);
    expect(await sql.query(`SELECT kind, status FROM job_runs WHERE job_id = $1`, [jobId])).toEqual([{ kind: 'rerun', status: 'queued' }]);
    expect(await leader.registry.getSingleMetricAsString('trawl_schedule_firings_total')).toContain(
      'trawl_schedule_firings_total{outcome="skipped_previous_running"} 1',
    );
  });

  it('records a refused run start and moves on', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const leader = await replica('a', clock);
    const tenantId = await createTenant(sql);
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, clock.now());
    runStarter.refuse = 'quota_exceeded';
    clock.set('2026-06-01T01:00:00Z');
    await leader.election.electOnce();
    await leader.firings.fireDueOnce();
    expect(await firingsOf(sql, tenantId, jobId)).toMatchObject([{ outcome: 'skipped_quota', run_id: null }]);
    expect(await runsOf(sql, tenantId, jobId)).toEqual([]);
  });

  it('fires nothing while paused, and on resume fires none of the times missed while paused', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const leader = await replica('a', clock);
    const tenantId = await createTenant(sql);
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, clock.now());
    const schedule = scheduleSchema.parse({ rate: { every: 1, unit: 'hour' } });
    const anchor = clock.now();
    // POST /jobs/{id}/schedule/state as the gateway applies it.
    const setState = async (state: 'active' | 'paused') =>
      pool.query(`UPDATE job_schedules SET state = $3, next_due_at = $4 WHERE tenant_id = $1 AND job_id = $2`, [
        tenantId,
        jobId,
        state,
        nextDueOnStateChange(schedule, anchor, state, clock.now()),
      ]);

    clock.set('2026-06-01T00:30:00Z');
    await setState('paused');
    clock.set('2026-06-01T03:30:00Z');
    await leader.election.electOnce();
    await leader.firings.fireDueOnce();
    expect(await firingsOf(sql, tenantId, jobId)).toEqual([]);

    await setState('active');
    await leader.firings.fireDueOnce();
    expect(await firingsOf(sql, tenantId, jobId)).toEqual([]);
    clock.set('2026-06-01T04:00:00Z');
    await leader.election.electOnce();
    await leader.firings.fireDueOnce();
    expect((await firingsOf(sql, tenantId, jobId)).map((f) => [f.due_at, f.outcome])).toEqual([['2026-06-01T04:00:00.000Z', 'started']]);
  });

  it('starts no second run for a due time another leader already recorded', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const leader = await replica('a', clock);
    const tenantId = await createTenant(sql);
    const jobId = await createSchedule(sql, tenantId, { rate: { every: 1, unit: 'hour' } }, clock.now());
    // A split brain's other leader recorded 01:00 and its run, but not (yet) the schedule's advance.
    await pool.query(
      `INSERT INTO schedule_firings (tenant_id, job_id, due_at, fired_at, outcome, leader_epoch)
       VALUES ($1, $2, '2026-06-01T01:00:00Z', '2026-06-01T01:00:00Z', 'started', 7)`,
      [tenantId, jobId],
    );
    clock.set('2026-06-01T01:00:02Z');
    await leader.election.electOnce();
    const [result] = await leader.firings.fireDueOnce();
    expect(result?.fired?.outcome).toBe('duplicate');
    expect(await runsOf(sql, tenantId, jobId)).toEqual([]);
    expect(await firingsOf(sql, tenantId, jobId)).toMatchObject([{ leader_epoch: 7 }]);
    const [row] = await sql.query<{ next_due_at: Date }>(`SELECT next_due_at FROM job_schedules WHERE job_id = $1`, [jobId]);
    expect(row?.next_due_at.toISOString()).toBe('2026-06-01T02:00:00.000Z');
  });

  it('keeps leading through a database outage only until its lease runs out', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const a = await replica('a', clock);
    expect((await a.election.electOnce())?.epoch).toBe(1);
    await a.crash(); // every query now fails
    clock.advance(10_000);
    expect((await a.election.electOnce())?.epoch).toBe(1);
    clock.advance(6_000);
    expect(await a.election.electOnce()).toBeUndefined();
    expect(await a.registry.getSingleMetricAsString('trawl_scheduler_leader')).toContain('trawl_scheduler_leader 0');
  });

  it('hands the lease over at once when the leader releases it', async () => {
    const clock = new ManualClock('2026-06-01T00:00:00Z');
    const [a, b] = [await replica('a', clock), await replica('b', clock)];
    expect((await a.election.electOnce())?.epoch).toBe(1);
    expect(await b.election.electOnce()).toBeUndefined();
    await a.election.release();
    await a.election.release();
    expect((await b.election.electOnce())?.epoch).toBe(2);
    expect(await a.election.electOnce()).toBeUndefined();
  });
});
