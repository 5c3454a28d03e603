import { waitFor } from '@trawl/testing';
import { connectForTests, gate, Job, job, RecordingLogger, StreamFixture } from '../test/jetstream-fixture';
import { BatchConsumer } from './batch-consumer';
import { MessagingConnection } from './connection';
import type { Disposition, InboundMessage } from './inbound-message';
import { publishJson, publishManyJson } from './publish';

type BatchHandler = (msgs: InboundMessage<Job>[]) => Promise<Disposition[]>;

describe(BatchConsumer.name, () => {
  let conn: MessagingConnection;
  let fx: StreamFixture;
  let logger: RecordingLogger;
  const running: BatchConsumer<Job>[] = [];
  const releaseAll: (() => void)[] = [];

  beforeAll(async () => {
    conn = await connectForTests('messaging-batch-test');
  });
  afterAll(() => conn.close());
  beforeEach(async () => {
    fx = new StreamFixture(conn);
    logger = new RecordingLogger();
    await fx.createStream();
  });
  afterEach(async () => {
    releaseAll.splice(0).forEach((release) => release());
    await Promise.all(running.splice(0).map((c) => c.stop(1_000)));
    await fx.cleanup();
  });

  function consumer(handler: BatchHandler, maxBatch = 10, maxWaitMs = 50): BatchConsumer<Job> {
    const c = new BatchConsumer<Job>({
      js: conn.js,
      stream: fx.stream,
      durable: 'workers',
      schema: job,
      logger,
      maxBatch,
      maxWaitMs,
      handler,
    });
    running.push(c);
    return c;
  }

  function publishJobs(ns: number[]) {
    return publishManyJson(
      conn.js,
      ns.map((n) => ({ subject: fx.subject, payload: { n } })),
    );
  }

  describe('start', () => {
    it('hands over batches of at most maxBatch and applies each message its own disposition', async () => {
      await fx.createConsumer();
      const sizes: number[] = [];
      const deliveries = new Map<number, number[]>();
      await consumer(async (msgs) => {
        sizes.push(msgs.length);
        return msgs.map((m): Disposition => {
          deliveries.set(m.data.n, [...(deliveries.get(m.data.n) ?? []), m.deliveryCount]);
          if (m.data.n === 7) return { kind: 'term', reason: 'poison' };
          if (m.data.n % 2 === 1 && m.deliveryCount === 1) return { kind: 'nak', delayMs: 100 };
          return { kind: 'ack' };
        });
      }).start();
      await publishJobs(Array.from({ length: 35 }, (_, n) => n));
      await waitFor(async () => (await fx.messagesInStream()) === 0 && (await fx.ackPending()) === 0, { what: 'all settled' });
      expect(Math.max(...sizes)).toBeLessThanOrEqual(10);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(35 + 16);
      expect(deliveries.get(0)).toEqual([1]);
      expect(deliveries.get(3)).toEqual([1, 2]);
      expect(deliveries.get(7)).toEqual([1]);
    });

    it('waits up to maxWaitMs for a batch to fill', async () => {
      await fx.createConsumer();
      const sizes: number[] = [];
      await consumer(async (msgs) => (sizes.push(msgs.length), msgs.map(() => ({ kind: 'ack' }))), 10, 500).start();
      for (const n of [1, 2, 3]) await publishJson(conn.js, fx.subject, { n });
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'acks' });
      expect(sizes).toEqual([3]);
    });

    it('terms invalid payloads and leaves them out of the batch', async () => {
      await fx.createConsumer();
      const seen: number[] = [];
      await consumer(async (msgs) => msgs.map((m) => (seen.push(m.data.n), { kind: 'ack' }))).start();
      await publishJson(conn.js, fx.subject, { n: 1 });
      await publishJson(conn.js, fx.subject, { nope: true });
      await publishJson(conn.js, fx.subject, { n: 3 });
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'all settled' });
      expect(seen.sort()).toEqual([1, 3]);
      expect(logger.warnings.filter((w) => w.msg === 'invalid message payload; terminated')).toHaveLength(1);
    });

    it('naks the whole batch with a delay when the handler throws or answers for the wrong number of messages', async () => {
      await fx.createConsumer();
      const batches: { n: number[]; delivery: number; at: number }[] = [];
      let calls = 0;
      await consumer(
        async (msgs) => {
          batches.push({ n: msgs.map((m) => m.data.n), delivery: msgs[0].deliveryCount, at: Date.now() });
          calls++;
          if (calls === 1) throw new Error('transaction failed');
          if (calls === 2) return [{ kind: 'ack' }];
          return msgs.map(() => ({ kind: 'ack' }));
        },
        10,
        200,
      ).start();
      await publishJobs([1, 2]);
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'acks after two failures' });
      expect(batches.map((b) => b.delivery)).toEqual([1, 2, 3]);
      expect(batches[1].at - batches[0].at).toBeGreaterThanOrEqual(900);
      expect(batches.every((b) => b.n.sort().join() === '1,2')).toBe(true);
      expect(logger.errors).toHaveLength(2);
    });
  });

  describe('stop', () => {
    it('naks the batch still in the handler at the deadline, so another replica gets it at once', async () => {
      await fx.createConsumer({ ackWaitMs: 30_000 });
      const stuck = gate();
      releaseAll.push(stuck.open);
      let handed = 0;
      const first = consumer(async (msgs) => {
        handed += msgs.length;
        await stuck.promise;
        return msgs.map(() => ({ kind: 'ack' }));
      });
      await first.start();
      await publishJobs([1, 2, 3]);
      await waitFor(() => handed === 3, { what: 'the batch on the first replica' });

      const taken: InboundMessage<Job>[] = [];
      await consumer(async (msgs) => (taken.push(...msgs), msgs.map(() => ({ kind: 'ack' })))).start();
      await first.stop(200);
      await waitFor(() => taken.length === 3, { timeoutMs: 20_000, what: 'the second replica to take over' });
      expect(taken.every((m) => m.deliveryCount === 2)).toBe(true);
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'acks of the second replica' });
    });

    it('lets the batch in the handler finish and acks it when that happens before the deadline', async () => {
      await fx.createConsumer();
      const held = gate();
      let handed = 0;
      const c = consumer(async (msgs) => {
        handed += msgs.length;
        await held.promise;
        return msgs.map(() => ({ kind: 'ack' }));
      });
      await c.start();
      await publishJobs([1, 2]);
      await waitFor(() => handed === 2, { what: 'the batch' });
      const stopped = c.stop(10_000);
      setTimeout(held.open, 100);
      await stopped;
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'acks' });
    });
  });
});
