import { randomUUID } from 'node:crypto';
import { Registry } from 'prom-client';
import { RunWebhookEventV1 } from '@trawl/contracts';
import { EgressPolicy } from '@trawl/egress';
import { createLogger } from '@trawl/observability';
import { createDataSource, Database, Sql } from '@trawl/persistence';
import { createMigratedDatabase, TestDatabase } from '@trawl/testing';
import { SecretBox, signingKeyContext, SigningKeysRepository, WebhookDeliveryClient } from '@trawl/webhooks';
import { createTestTls, WebhookReceiver } from '../../../test/fixtures/webhook-receiver';
import { AttemptRecord, AttemptVerdict, ClaimedDelivery, DeliveryRepository } from '../src/deliveries/delivery.repository';
import { DeliveryService, INTERNAL_ERROR, SIGNING_KEY_UNAVAILABLE } from '../src/deliveries/delivery.service';
import { DispatcherMetrics } from '../src/dispatcher.metrics';

describe(DeliveryService.name, () => {
  const tls = createTestTls();
  const receiver = new WebhookReceiver(tls);
  const box = new SecretBox(Buffer.alloc(32, 3));
  const secret = Buffer.alloc(32, 4).toString('base64');
  let database: TestDatabase;
  let db: Database;
  let client: WebhookDeliveryClient;
  let now: Date;

  function service(
    overrides: { box?: SecretBox | undefined; windowMs?: number; deliveries?: DeliveryRepository; client?: WebhookDeliveryClient } = {},
  ): DeliveryService {
    return new DeliveryService(
      db,
      overrides.deliveries ?? new DeliveryRepository(),
      new SigningKeysRepository(),
      overrides.client ?? client,
      new DispatcherMetrics(new Registry()),
      {
        box: 'box' in overrides ? overrides.box : box,
        schedule: { baseMs: 1_000, maxDelayMs: 10_000, windowMs: overrides.windowMs ?? 60_000 },
        attemptTimeoutMs: 1_000,
        clock: () => now,
        random: () => 0.5,
      },
      createLogger('delivery-test', 'silent'),
    );
  }

  /** A tenant with an active key `kid_t`, sealed by `seal` (default: the dispatcher's own box). */
  async function tenant(
    withKey = true,
    seal = (tenantId: string) => box.seal(Buffer.from(secret), signingKeyContext(tenantId, 'kid_t')),
  ): Promise<string> {
    const [row] = await db.query<{ id: string }>(
      `INSERT INTO tenants (name, credits_limit, concurrency, max_active_jobs, period_ends_at)
       VALUES ('t', 1000, 5, 3, now() + interval '30 days') RETURNING id`,
    );
    if (withKey) await new SigningKeysRepository().insert(db, row.id, 'kid_t', 'active', seal(row.id));
    return row.id;
  }

  function event(tenantId: string, signature = true): RunWebhookEventV1 {
    return {
      v: 1,
      event_id: randomUUID(),
      event_type: 'run.completed',
      occurred_at: '2026-11-23T10:00:00.000Z',
      tenant_id: tenantId,
      job_id: 'job',
      run_id: 'run',
      run_sequence: 1,
      stats: { total: 1, completed: 1, successful: 1, failed: 0, spend: { credits: 1, cost: 0.0001 } },
      webhook: { url: receiver.url(), signature },
    };
  }

  async function attempts(eventId: string) {
    return db.query<{ attempt: number; status_code: number | null; error: string | null }>(
      `SELECT a.attempt, a.status_code, a.error FROM webhook_delivery_attempts a
         JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.event_id = $1 ORDER BY a.attempt`,
      [eventId],
    );
  }

  async function delivery(eventId: string) {
    const [row] = await db.query<{ status: string; next_attempt_at: Date | null; attempts: number }>(
      `SELECT status, next_attempt_at, attempts FROM webhook_deliveries WHERE event_id = $1`,
      [eventId],
    );
    return row;
  }

  beforeAll(async () => {
    database = await createMigratedDatabase();
    db = new Database(await createDataSource({ url: database.url, poolSize: 4 }).initialize());
    await receiver.start();
    receiver.trust('kid_t', secret);
    client = new WebhookDeliveryClient({
      policy: new EgressPolicy({ hostMap: new Map([['hooks.test', '127.0.0.1']]) }),
      timeoutMs: 1_000,
      extraCaPem: tls.caPem,
    });
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await receiver.stop();
    await db?.dataSource.destroy();
    await database?.drop();
  });

  beforeEach(async () => {
    now = new Date('2030-01-01T00:00:00Z');
    receiver.failNext(0);
    // Every test claims from the whole table: start from an empty one.
    await db.query(`DELETE FROM webhook_deliveries`);
  });

  describe('accept', () => {
    it('records one delivery per event id, and none without a webhook', async () => {
      const s = service();
      const e = event(await tenant());
      expect(await s.accept(e)).toBe(true);
      expect(await s.accept(e)).toBe(false);
      expect(await s.accept({ ...event(e.tenant_id), webhook: null })).toBe(false);
      expect(await db.query(`SELECT 1 FROM webhook_deliveries`)).toHaveLength(1);
    });
  });

  describe('claim', () => {
    it('never gives one delivery to two replicas, and gives it again once the lease lapsed', async () => {
      const tenantId = await tenant();
      for (let i = 0; i < 20; i++) await service().accept(event(tenantId));
      const [a, b, c] = await Promise.all([service().claim(8), service().claim(8), service().claim(8)]);
      const ids = [...a, ...b, ...c].map((claim) => claim.id);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
      expect(await service().claim(20)).toHaveLength(0);
      now = new Date(now.getTime() + 6_001); // attempt timeout (1 s) + the 5 s margin
      const again = await service().claim(20);
      expect(again).toHaveLength(20);
      expect(again.every((claim) => claim.attempt === 2)).toBe(true);
    });
  });

  describe('attempt', () => {
    it('retries a failed attempt after the backoff, then records the success, with one event id', async () => {
      const s = service();
      const e = event(await tenant());
      await s.accept(e);
      receiver.failNext(1);
      const [first] = await s.claim(10);
      await s.attempt(first);
      expect(await delivery(e.event_id)).toMatchObject({ status: 'pending', next_attempt_at: new Date(now.getTime() + 500) });
      expect(await s.claim(10)).toHaveLength(0);
      now = new Date(now.getTime() + 500);
      const [second] = await s.claim(10);
      await s.attempt(second);
      expect((await delivery(e.event_id)).status).toBe('delivered');
      expect(await attempts(e.event_id)).toEqual([
        { attempt: 1, status_code: 500, error: 'http_5xx:500' },
        { attempt: 2, status_code: 200, error: null },
      ]);
      expect(receiver.forEvent(e.event_id).map((r) => r.signature)).toEqual(['ok', 'ok']);
    });

    it('gives up once the next try would fall outside the retry window', async () => {
      const s = service({ windowMs: 100 });
      const e = event(await tenant());
      await s.accept(e);
      receiver.failNext(1);
      const [claim] = await s.claim(1);
      await s.attempt(claim);
      expect(await delivery(e.event_id)).toMatchObject({ status: 'failed', next_attempt_at: null });
    });

    it('logs a late attempt but leaves the delivery to the replica that claimed it since', async () => {
      const s = service();
      const e = event(await tenant());
      await s.accept(e);
      const [stale] = await s.claim(1);
      now = new Date(now.getTime() + 6_001);
      const [current] = await s.claim(1);
      receiver.failNext(1);
      await s.attempt(stale);
      expect(await delivery(e.event_id)).toMatchObject({ status: 'pending', attempts: 2 });
      await s.attempt(current);
      expect((await delivery(e.event_id)).status).toBe('delivered');
      expect((await attempts(e.event_id)).map((a) => a.attempt)).toEqual([1, 2]);
    });

    it('does not send a signed event it cannot sign, and retries it', async () => {
      const s = service({ box: undefined });
      const e = event(await tenant());
      await s.accept(e);
      const [claim] = await s.claim(1);
      await s.attempt(claim);
      expect(await attempts(e.event_id)).toEqual([{ attempt: 1, status_code: null, error: SIGNING_KEY_UNAVAILABLE }]);
      expect((await delivery(e.event_id)).status).toBe('pending');
      expect(receiver.forEvent(e.event_id)).toHaveLength(0);
    });

    it('records an attempt whose active key does not open with this SECRETS_KEY, and gives it up after the retry window', async () => {
      const s = service();
      // Sealed under another SECRETS_KEY: the operator rotated it without re-sealing the keys.
      const rotated = new SecretBox(Buffer.alloc(32, 9));
      const e = event(await tenant(true, (id) => rotated.seal(Buffer.from(secret), signingKeyContext(id, 'kid_t'))));
      await s.accept(e);
      const [first] = await s.claim(1);
      await s.attempt(first);
      expect(await attempts(e.event_id)).toEqual([{ attempt: 1, status_code: null, error: SIGNING_KEY_UNAVAILABLE }]);
      // The backoff's time, not the claim's lease end (now + 6 s).
      expect(await delivery(e.event_id)).toMatchObject({ status: 'pending', next_attempt_at: new Date(now.getTime() + 500) });

      for (let i = 0; i < 100 && (await delivery(e.event_id)).status === 'pending'; i++) {
        now = (await delivery(e.event_id)).next_attempt_at!;
        const [claim] = await s.claim(1);
        await s.attempt(claim);
      }
      const last = await delivery(e.event_id);
      expect(last).toMatchObject({ status: 'failed', next_attempt_at: null });
      const logged = await attempts(e.event_id);
      expect(logged).toHaveLength(last.attempts);
      expect(logged.every((a) => a.error === SIGNING_KEY_UNAVAILABLE)).toBe(true);
      expect(receiver.forEvent(e.event_id)).toHaveLength(0);
    });

    it('records an attempt whose key row is corrupt as unsignable', async () => {
      const s = service();
      const e = event(await tenant(true, () => Buffer.from([1, 2, 3])));
      await s.accept(e);
      const [claim] = await s.claim(1);
      await s.attempt(claim);
      expect(await attempts(e.event_id)).toEqual([{ attempt: 1, status_code: null, error: SIGNING_KEY_UNAVAILABLE }]);
      expect((await delivery(e.event_id)).status).toBe('pending');
    });

    it('records an attempt that throws inside the dispatcher as internal_error and retries it', async () => {
      const throwing = { send: () => Promise.reject(new Error('bug in the client')) } as unknown as WebhookDeliveryClient;
      const s = service({ client: throwing });
      const e = event(await tenant(), false);
      await s.accept(e);
      const [claim] = await s.claim(1);
      await s.attempt(claim);
      expect(await attempts(e.event_id)).toEqual([{ attempt: 1, status_code: null, error: INTERNAL_ERROR }]);
      expect(await delivery(e.event_id)).toMatchObject({ status: 'pending', next_attempt_at: new Date(now.getTime() + 500) });
    });

    it('records a bare internal_error attempt when the attempt’s own record is refused, and sends again', async () => {
      // Postgres refusing what one attempt carries (a value out of range, say) refuses it on every retry.
      class RefusingDeliveries extends DeliveryRepository {
        override recordAttempt(sql: Sql, claim: ClaimedDelivery, attempt: AttemptRecord, verdict: AttemptVerdict): Promise<boolean> {
          if (attempt.error !== INTERNAL_ERROR) return Promise.reject(new Error('integer out of range'));
          return super.recordAttempt(sql, claim, attempt, verdict);
        }
      }
      const s = service({ deliveries: new RefusingDeliveries() });
      const e = event(await tenant());
      await s.accept(e);
      const [claim] = await s.claim(1);
      await s.attempt(claim);
      expect(await attempts(e.event_id)).toEqual([{ attempt: 1, status_code: null, error: INTERNAL_ERROR }]);
      expect(await delivery(e.event_id)).toMatchObject({ status: 'pending', next_attempt_at: new Date(now.getTime() + 500) });
      expect(receiver.forEvent(e.event_id)).toHaveLength(1);
    });
  });
});
