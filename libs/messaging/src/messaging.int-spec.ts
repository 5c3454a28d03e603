import { z } from 'zod';
import { Pool } from 'pg';
import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { createTestDatabase, TestDatabase, uniqueSuffix, waitFor } from '@trawl/testing';
import {
  BatchConsumer,
  deleteStreams,
  Disposition,
  ensureConsumer,
  ensureStream,
  InboundMessage,
  MessageConsumer,
  MessagingConnection,
  OutboxRelay,
  publishJson,
} from './index';

const payload = z.object({ n: z.number() });
type Payload = z.infer<typeof payload>;

jest.setTimeout(20_000);

describe('JetStream messaging layer', () => {
  let conn: MessagingConnection;
  let stream: string;
  let subject: string;
  const durable = 'workers';

  beforeAll(async () => {
    conn = await MessagingConnection.connect({ servers: 'nats://127.0.0.1:4222', name: 'messaging-test' });
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(async () => conn.close());

  beforeEach(async () => {
    const id = uniqueSuffix();
    stream = `TEST_${id.toUpperCase()}`;
    subject = `test.${id}.work`;
    await ensureStream(conn.jsm, { name: stream, subjects: [subject], retention: 'workqueue' });
  });
  afterEach(async () => deleteStreams(conn.jsm, [stream]));

  const consumerSpec = (over: Partial<Parameters<typeof ensureConsumer>[1]> = {}) => ({
    stream,
    durable,
    ackWaitMs: 1_000,
    maxDeliver: 5,
    maxAckPending: 100,
    ...over,
  });

  function runConsumer(concurrency: number, handler: (m: InboundMessage<Payload>) => Promise<Disposition>) {
    const consumer = new MessageConsumer<Payload>({ js: conn.js, stream, durable, schema: payload, concurrency, handler });
    return consumer;
  }

  describe(ensureStream.name, () => {
    it('is idempotent and updates a changed config', async () => {
      await ensureStream(conn.jsm, { name: stream, subjects: [subject], retention: 'workqueue' });
      await ensureStream(conn.jsm, { name: stream, subjects: [subject], retention: 'workqueue', maxAgeMs: 60_000 });
      const info = await conn.jsm.streams.info(stream);
      expect(info.config.max_age).toBe(60_000 * 1_000_000);
      await ensureConsumer(conn.jsm, consumerSpec());
      await ensureConsumer(conn.jsm, consumerSpec({ maxAckPending: 7 }));
      expect((await conn.jsm.consumers.info(stream, durable)).config.max_ack_pending).toBe(7);
    });
  });

  describe(publishJson.name, () => {
    it('drops a second publish with the same msg id', async () => {
      const first = await publishJson(conn.js, subject, { n: 1 }, { msgId: 'same' });
      const second = await publishJson(conn.js, subject, { n: 1 }, { msgId: 'same' });
      expect(first.duplicate).toBe(false);
      expect(second.duplicate).toBe(true);
      expect((await conn.jsm.streams.info(stream)).state.messages).toBe(1);
    });
  });

  describe(MessageConsumer.name, () => {
    it('acks, redelivers a nak after its delay, and never redelivers a term', async () => {
      await ensureConsumer(conn.jsm, consumerSpec());
      const seen: { n: number; delivery: number; at: number }[] = [];
      const consumer = runConsumer(4, async (m) => {
        seen.push({ n: m.data.n, delivery: m.deliveryCount, at: Date.now() });
        if (m.data.n === 2 && m.deliveryCount === 1) return { kind: 'nak', delayMs: 300 };
        if (m.data.n === 3) return { kind: 'term', reason: 'poison' };
        return { kind: 'ack' };
      });
      await consumer.start();
      for (const n of [1, 2, 3]) await publishJson(conn.js, subject, { n });
      await waitFor(() => seen.some((s) => s.n === 2 && s.delivery === 2), { timeoutMs: 5_000 });
      const first = seen.find((s) => s.n === 2 && s.delivery === 1)!;
      const second = seen.find((s) => s.n === 2 && s.delivery === 2)!;
      expect(second.at - first.at).toBeGreaterThanOrEqual(250);
      // nats-server 2.9 keeps a termed message in a work-queue stream; what matters is that it is
      // never delivered again and nothing is left pending.
      await waitFor(async () => {
        const info = await conn.jsm.consumers.info(stream, durable);
        return info.num_ack_pending === 0 && seen.some((s) => s.n === 1);
      }, { timeoutMs: 5_000 });
      expect(seen.filter((s) => s.n === 3)).toHaveLength(1);
      expect(seen.filter((s) => s.n === 1)).toHaveLength(1);
      await consumer.stop();
    });

    it('redelivers after ack wait unless the handler says it is working', async () => {
      await ensureConsumer(conn.jsm, consumerSpec({ ackWaitMs: 1_000 }));
      const deliveries = new Map<number, number>();
      const consumer = runConsumer(4, async (m) => {
        deliveries.set(m.data.n, (deliveries.get(m.data.n) ?? 0) + 1);
        if (m.deliveryCount > 1) return { kind: 'ack' };
        const heartbeat = m.data.n === 1 ? setInterval(() => m.working(), 300) : undefined;
        await new Promise((r) => setTimeout(r, 2_000));
        clearInterval(heartbeat);
        return { kind: 'ack' };
      });
      await consumer.start();
      await publishJson(conn.js, subject, { n: 1 });
      await publishJson(conn.js, subject, { n: 2 });
      await waitFor(async () => (await conn.jsm.streams.info(stream)).state.messages === 0, { timeoutMs: 8_000 });
      expect(deliveries.get(1)).toBe(1);
      expect(deliveries.get(2)).toBe(2);
      await consumer.stop();
    });

    it('keeps in-flight messages within max_ack_pending and stops after max_deliver', async () => {
      await ensureConsumer(conn.jsm, consumerSpec({ maxAckPending: 3, maxDeliver: 2 }));
      let active = 0;
      let peak = 0;
      const attempts = new Map<number, number>();
      const consumer = runConsumer(10, async (m) => {
        active++;
        peak = Math.max(peak, active);
        attempts.set(m.data.n, (attempts.get(m.data.n) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 50));
        active--;
        return m.data.n === 0 ? { kind: 'nak', delayMs: 10 } : { kind: 'ack' };
      });
      await consumer.start();
      for (let n = 0; n < 12; n++) await publishJson(conn.js, subject, { n });
      await waitFor(() => [...attempts.keys()].length === 12 && attempts.get(0) === 2, { timeoutMs: 8_000 });
      expect(peak).toBeLessThanOrEqual(3);
      await waitFor(async () => (await conn.jsm.consumers.info(stream, durable)).num_ack_pending === 0, { timeoutMs: 5_000 });
      expect(attempts.get(0)).toBe(2);
      await consumer.stop();
    });

    it('terms an invalid payload and carries trace context from publisher to handler', async () => {
      await ensureConsumer(conn.jsm, consumerSpec());
      const got: InboundMessage<Payload>[] = [];
      const consumer = runConsumer(2, async (m) => (got.push(m), { kind: 'ack' }));
      await consumer.start();
      await publishJson(conn.js, subject, { wrong: true });
      const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED };
      await context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () => publishJson(conn.js, subject, { n: 9 }));
      await waitFor(() => got.length === 1, { timeoutMs: 5_000 });
      expect(got[0].data).toEqual({ n: 9 });
      expect(trace.getSpanContext(got[0].traceContext())?.traceId).toBe(spanContext.traceId);
      await waitFor(async () => (await conn.jsm.consumers.info(stream, durable)).num_ack_pending === 0, { timeoutMs: 5_000 });
      expect(got).toHaveLength(1);
      await consumer.stop();
    });
  });

  describe(BatchConsumer.name, () => {
    it('hands over batches of at most maxBatch and applies each disposition', async () => {
      await ensureConsumer(conn.jsm, consumerSpec());
      const sizes: number[] = [];
      const acked = new Set<number>();
      const consumer = new BatchConsumer<Payload>({
        js: conn.js, stream, durable, schema: payload, maxBatch: 10, maxWaitMs: 50,
        handler: async (msgs) => {
          sizes.push(msgs.length);
          return msgs.map((m) => {
            if (m.data.n % 2 === 1 && m.deliveryCount === 1) return { kind: 'nak', delayMs: 10 } as const;
            acked.add(m.data.n);
            return { kind: 'ack' } as const;
          });
        },
      });
      await consumer.start();
      for (let n = 0; n < 35; n++) await publishJson(conn.js, subject, { n });
      await waitFor(() => acked.size === 35, { timeoutMs: 8_000 });
      expect(Math.max(...sizes)).toBeLessThanOrEqual(10);
      await consumer.stop();
    });
  });

  describe(OutboxRelay.name, () => {
    let db: TestDatabase;
    let pool: Pool;
    beforeEach(async () => {
      db = await createTestDatabase();
      pool = new Pool({ connectionString: db.url, max: 4 });
      await pool.query(`CREATE TABLE outbox (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), subject text NOT NULL,
        payload jsonb NOT NULL, headers jsonb NOT NULL DEFAULT '{}', created_at timestamptz NOT NULL DEFAULT now(), published_at timestamptz)`);
    });
    afterEach(async () => {
      await pool.end();
      await db.drop();
    });

    it('publishes each row once, with racing relays and after a crash before marking', async () => {
      for (let n = 0; n < 50; n++) await pool.query(`INSERT INTO outbox (subject, payload) VALUES ($1, $2)`, [subject, { n }]);
      // A relay that published two rows and died before marking them.
      const { rows } = await pool.query(`SELECT id, payload FROM outbox ORDER BY created_at LIMIT 2`);
      for (const row of rows) await publishJson(conn.js, subject, row.payload, { msgId: row.id });
      const relays = [1, 2].map(() => new OutboxRelay({ pool, js: conn.js, batchSize: 7 }));
      await waitFor(async () => {
        await Promise.all(relays.map((r) => r.relayOnce()));
        const left = await pool.query(`SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL`);
        return left.rows[0].n === 0;
      }, { timeoutMs: 10_000 });
      expect((await conn.jsm.streams.info(stream)).state.messages).toBe(50);
    });
  });
});
