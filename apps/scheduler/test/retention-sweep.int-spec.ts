import { randomUUID } from 'node:crypto';
import { systemClock } from '@trawl/scheduling';
import { createMigratedDatabase, TestDatabase, uniqueSuffix } from '@trawl/testing';
import { LeaseRepository } from '../src/leadership/lease.repository';
import { RetentionRepository } from '../src/retention/retention.repository';
import { RetentionSweepService } from '../src/retention/retention-sweep.service';
import { RetentionSettings } from '../src/retention/retention.settings';
import { createJobWithRun, createTenant } from './support/runs-harness';
import { SchedulerInstance, startInstance, TableRunStarter } from './support/scheduler-harness';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe(RetentionSweepService.name, () => {
  let database: TestDatabase;
  let leader: SchedulerInstance;
  let follower: SchedulerInstance;
  const settings: RetentionSettings = { sweepIntervalMs: 1_000, expiredKeptMs: DAY, batchSize: 2 };
  const sweeperOf = (instance: SchedulerInstance) =>
    new RetentionSweepService(instance.db, instance.election, new LeaseRepository(), new RetentionRepository(), settings, instance.logger);

  beforeAll(async () => {
    database = await createMigratedDatabase();
    const leaseName = `test.retention.${uniqueSuffix()}`;
    leader = await startInstance(database.url, leaseName, 'leader', systemClock, new TableRunStarter());
    follower = await startInstance(database.url, leaseName, 'follower', systemClock, new TableRunStarter());
  });

  afterAll(async () => {
    await leader?.crash();
    await follower?.crash();
    await database?.drop();
  });

  /** A CSV input slot with `rows` staged rows, expiring `expiresInMs` from now (negative: in the past). */
  async function input(tenantId: string, state: string, expiresInMs: number, rows: number): Promise<string> {
    const id = randomUUID();
    await leader.db.query(
      `INSERT INTO job_inputs (id, tenant_id, header, url_field, state, expires_at)
       VALUES ($1, $2, true, 'url', $3, now() + make_interval(secs => $4::double precision / 1000))`,
      [id, tenantId, state, expiresInMs],
    );
    await leader.db.query(
      `INSERT INTO job_input_rows (input_id, seq, url) SELECT $1, i, 'https://shop.test/' || i FROM generate_series(1, $2::int) i`,
      [id, rows],
    );
    return id;
  }

  async function exportRecord(tenantId: string, jobId: string, runId: string, expiresInMs: number): Promise<string> {
    const id = randomUUID();
    await leader.db.query(
      `INSERT INTO job_exports (id, tenant_id, job_id, run_id, format, body_bytes, expires_at)
       VALUES ($1, $2, $3, $4, 'tar.gz', 0, now() + make_interval(secs => $5::double precision / 1000))`,
      [id, tenantId, jobId, runId, expiresInMs],
    );
    return id;
  }

  const remainingRows = async (id: string) =>
    (await leader.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM job_input_rows WHERE input_id = $1`, [id]))[0].n;
  const inputExists = async (id: string) => (await leader.db.query(`SELECT 1 FROM job_inputs WHERE id = $1`, [id])).length === 1;
  const exportExists = async (id: string) => (await leader.db.query(`SELECT 1 FROM job_exports WHERE id = $1`, [id])).length === 1;

  describe('sweepOnce', () => {
    it('deletes staged rows of inputs expired unused, and slots and exports kept past expiry long enough, on the leader only', async () => {
      const tenantId = await createTenant(leader.db, 1);
      const { jobId, runId } = await createJobWithRun(leader.db, tenantId, ['https://shop.test/a']);
      const justExpired = await input(tenantId, 'uploaded', -HOUR, 5);
      const longExpired = await input(tenantId, 'uploaded', -2 * DAY, 3);
      const neverUploaded = await input(tenantId, 'awaiting_upload', -2 * DAY, 0);
      const live = await input(tenantId, 'uploaded', HOUR, 4);
      const used = await input(tenantId, 'used', -2 * DAY, 0);
      const oldExport = await exportRecord(tenantId, jobId, runId, -2 * DAY);
      const recentExport = await exportRecord(tenantId, jobId, runId, -HOUR);
      const liveExport = await exportRecord(tenantId, jobId, runId, 12 * HOUR);

      await leader.election.electOnce();
      await follower.election.electOnce();
      expect(leader.election.current()).toBeDefined();
      expect(follower.election.current()).toBeUndefined();

      // A replica that does not lead sweeps nothing.
      expect(await sweeperOf(follower).sweepOnce()).toEqual({ inputRows: 0, inputs: 0, exports: 0 });
      expect(await remainingRows(justExpired)).toBe(5);

      // Batches of 2: the sweep goes on until a batch comes back short.
      expect(await sweeperOf(leader).sweepOnce()).toEqual({ inputRows: 8, inputs: 2, exports: 1 });
      expect(await remainingRows(justExpired)).toBe(0);
      expect(await inputExists(justExpired)).toBe(true); // still answers file_input_expired
      expect(await inputExists(longExpired)).toBe(false);
      expect(await inputExists(neverUploaded)).toBe(false);
      expect(await remainingRows(live)).toBe(4);
      expect(await inputExists(used)).toBe(true);
      expect(await exportExists(oldExport)).toBe(false);
      expect(await exportExists(recentExport)).toBe(true); // still answers export_expired
      expect(await exportExists(liveExport)).toBe(true);

      expect(await sweeperOf(leader).sweepOnce()).toEqual({ inputRows: 0, inputs: 0, exports: 0 });
    });

    it('deletes nothing once another replica took the lease (epoch guard)', async () => {
      const tenantId = await createTenant(leader.db, 1);
      const expired = await input(tenantId, 'uploaded', -HOUR, 2);
      await leader.election.electOnce();
      const lease = leader.election.current();
      expect(lease).toBeDefined();
      // Another replica takes over behind the leader's back (as after a long pause).
      await leader.db.query(`UPDATE leases SET holder = 'someone-else', epoch = epoch + 1 WHERE name = $1`, [lease!.name]);
      expect(await sweeperOf(leader).sweepOnce()).toEqual({ inputRows: 0, inputs: 0, exports: 0 });
      expect(await remainingRows(expired)).toBe(2);
      expect(leader.election.current()).toBeUndefined();
    });
  });
});
