import type { Pool } from 'pg';
import { createTestDatabase, testPool, TestDatabase } from '@trawl/testing';
import { connectForTests, RecordingLogger, StreamFixture } from '../test/jetstream-fixture';
import { MessagingConnection } from './connection';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { OutboxRelay } from './outbox-relay';
import { publishJson } from './publish';

describe(OutboxRelay.name, () => {
  let conn: MessagingConnection;
  let db: TestDatabase;
  let pool: Pool;
  let fx: StreamFixture;
  let logger: RecordingLogger;

  beforeAll(async () => {
    conn = await connectForTests('messaging-outbox-test');
    db = await createTestDatabase();
    pool = testPool(db.url, 6);
    // The table as the persistence migration creates it.
    await pool.query(`
      CREATE TABLE outbox (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        subject text NOT NULL,
        payload jsonb NOT NULL,
        headers jsonb NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz
      )`);
    await pool.query(`CREATE INDEX outbox_unpublished ON outbox (created_at) WHERE published_at IS NULL`);
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
    await conn.close();
  });
  beforeEach(async () => {
    fx = new StreamFixture(conn);
    logger = new RecordingLogger();
    await fx.createStream({ retention: 'limits', subjects: [`${fx.subject}.>`] });
    await pool.query('TRUNCATE outbox');
  });
  afterEach(async () => {
    await fx.cleanup();
  });

  function relay(batchSize = 100): OutboxRelay {
    return new OutboxRelay({ pool, js: conn.js, batchSize, logger });
  }

  /** Inserts `count` rows, oldest first; returns their ids in order. */
  async function insertRows(count: number, subject = `${fx.subject}.event`): Promise<string[]> {
    const { rows } = await pool.query<{ id: string }>(
      `INSERT INTO outbox (subject, payload, created_at)
       SELECT $1, jsonb_build_object('n', n), now() + n * interval '1 microsecond' FROM generate_series(0, $2 - 1) n
       RETURNING id`,
      [subject, count],
    );
    return rows.map((r) => r.id);
  }

  async function unpublished(): Promise<number> {
    return (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL')).rows[0].n;
  }

  /** Every stored message's `Nats-Msg-Id`, in stream order. */
  async function storedMsgIds(): Promise<string[]> {
    const { state } = await conn.jsm.streams.info(fx.stream);
    const ids: string[] = [];
    for (let seq = state.first_seq; seq <= state.last_seq && state.messages > 0; seq++) {
      const stored = await conn.jsm.streams.getMessage(fx.stream, { seq });
      if (stored) ids.push(stored.header.get('Nats-Msg-Id'));
    }
    return ids;
  }

  describe('relayOnce', () => {
    it('publishes the oldest unpublished rows with their id as msg id and headers, then marks them', async () => {
      const ids = await insertRows(3);
      await pool.query(
        `UPDATE outbox SET headers = '{"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}' WHERE id = $1`,
        [ids[0]],
      );
      expect(await relay().relayOnce()).toBe(3);
      expect(await unpublished()).toBe(0);
      expect(await storedMsgIds()).toEqual(ids);
      const first = await conn.jsm.streams.getMessage(fx.stream, { seq: (await conn.jsm.streams.info(fx.stream)).state.first_seq });
      expect(first?.json()).toEqual({ n: 0 });
      expect(first?.subject).toBe(`${fx.subject}.event`);
      expect(first?.header.get('traceparent')).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
      expect(await relay().relayOnce()).toBe(0);
    });

    it('relays at most batchSize rows per pass', async () => {
      await insertRows(5);
      expect(await relay(2).relayOnce()).toBe(2);
      expect(await unpublished()).toBe(3);
    });

    it('publishes each row once when relays race', async () => {
      const ids = await insertRows(400);
      const racers = [relay(25), relay(25), relay(25)];
      let total = 0;
      // A pass whose acks all time out on a loaded machine rejects and leaves its rows for later,
      // as the relay's own loop does; the racer goes on, so every racer ends before teardown.
      const race = async (r: OutboxRelay) => {
        for (let attempt = 0; attempt < 50; attempt++) {
          const n = await r.relayOnce().catch((error: unknown) => {
            if ((error as MessagingError).code === MessagingErrorCode.PublishFailed) return -1;
            throw error;
          });
          if (n === 0) return;
          if (n > 0) total += n;
        }
      };
      await Promise.allSettled(racers.map(race)).then((settled) => {
        const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
        if (failed) throw failed.reason;
      });
      expect(total).toBe(400);
      expect(await unpublished()).toBe(0);
      expect((await storedMsgIds()).sort()).toEqual([...ids].sort());
    });

    it('skips rows another relay holds instead of waiting for them', async () => {
      await insertRows(10);
      const holder = await pool.connect();
      try {
        await holder.query('BEGIN');
        await holder.query('SELECT id FROM outbox ORDER BY created_at LIMIT 4 FOR UPDATE');
        const started = Date.now();
        expect(await relay().relayOnce()).toBe(6);
        expect(Date.now() - started).toBeLessThan(2_000);
      } finally {
        await holder.query('ROLLBACK');
        holder.release();
      }
      expect(await relay().relayOnce()).toBe(4);
      expect(await fx.messagesInStream()).toBe(10);
    });

    it('does not publish a row twice when a relay died after publishing it and before marking it', async () => {
      const [id] = await insertRows(1);
      // What the crashed relay got done: the publish, not the UPDATE.
      await publishJson(conn.js, `${fx.subject}.event`, { n: 0 }, { msgId: id });
      expect(await relay().relayOnce()).toBe(1);
      expect(await unpublished()).toBe(0);
      expect(await storedMsgIds()).toEqual([id]);
    });

    it('keeps rows whose publish failed for a later pass and marks the others', async () => {
      await insertRows(2);
      await insertRows(1, `nowhere.${fx.id}`);
      expect(await relay().relayOnce()).toBe(2);
      expect(await unpublished()).toBe(1);
      expect(logger.warnings.map((w) => w.msg)).toContain('some outbox rows were not published; retrying later');
    });

    it('rejects with publish_failed when no row could be published', async () => {
      await insertRows(1, `nowhere.${fx.id}`);
      const error = await relay()
        .relayOnce()
        .catch((e: unknown) => e);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.PublishFailed);
      expect(await unpublished()).toBe(1);
    });
  });

  describe('constructor', () => {
    it('refuses a table name that is not a plain identifier', () => {
      expect(() => new OutboxRelay({ pool, js: conn.js, table: 'outbox; DROP TABLE tenants' })).toThrow(MessagingError);
    });
  });
});
