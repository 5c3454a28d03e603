import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { TestContextManager, waitFor } from '@trawl/testing';
import { connectForTests, CuttableProxy, gate, Job, job, RecordingLogger, StreamFixture } from '../test/jetstream-fixture';
import { MessagingConnection } from './connection';
import type { Disposition, InboundMessage } from './inbound-message';
import { MessageConsumer } from './message-consumer';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { publishJson, publishManyJson } from './publish';

type Handler = (msg: InboundMessage<Job>) => Promise<Disposition>;

describe(MessageConsumer.name, () => {
  let conn: MessagingConnection;
  let fx: StreamFixture;
  let logger: RecordingLogger;
  const running: MessageConsumer<Job>[] = [];
  const releaseAll: (() => void)[] = [];

  beforeAll(async () => {
    conn = await connectForTests('messaging-consumer-test');
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

  function consumer(handler: Handler, concurrency = 4, durable = 'workers'): MessageConsumer<Job> {
    const c = new MessageConsumer<Job>({ js: conn.js, stream: fx.stream, durable, schema: job, logger, concurrency, handler });
    running.push(c);
    return c;
  }

  /** A consumer of 8 slots whose messages take as many as their `Weight` header says. */
  function weighedConsumer(handler: (m: InboundMessage<Job>) => Promise<Disposition>) {
    const c = new MessageConsumer<Job>({
      js: conn.js,
      stream: fx.stream,
      durable: 'workers',
      schema: job,
      logger,
      concurrency: 8,
      weigh: (msg) => Number(msg.headers?.get('Weight') || 1),
      handler,
    });
    running.push(c);
    return c;
  }

  /** Jobs that weigh four slots each (`weighedConsumer`). */
  function publishHeavy(ns: number[]) {
    return publishManyJson(
      conn.js,
      ns.map((n) => ({ subject: fx.subject, payload: { n }, headers: { Weight: '4' } })),
    );
  }

  /** Records each delivery: n, deliveryCount, time. */
  function recorder() {
    const seen: { n: number; delivery: number; at: number }[] = [];
    const record = (m: InboundMessage<Job>) => seen.push({ n: m.data.n, delivery: m.deliveryCount, at: Date.now() });
    return { seen, record, deliveries: (n: number) => seen.filter((s) => s.n === n).length };
  }

  function publishJobs(ns: number[]) {
    return publishManyJson(
      conn.js,
      ns.map((n) => ({ subject: fx.subject, payload: { n } })),
    );
  }

  describe('start', () => {
    it('acks what the handler acks, which removes it from the work queue', async () => {
      await fx.createConsumer();
      const { record, seen } = recorder();
      await consumer(async (m) => (record(m), { kind: 'ack' })).start();
      await publishJobs([1, 2, 3]);
      await waitFor(async () => seen.length === 3 && (await fx.messagesInStream()) === 0, { what: 'all acked' });
      expect(seen.map((s) => s.n).sort()).toEqual([1, 2, 3]);
      expect(seen.every((s) => s.delivery === 1)).toBe(true);
    });

    it('redelivers a nak-ed message after its delay, with deliveryCount 2', async () => {
      await fx.createConsumer();
      const { record, seen } = recorder();
      await consumer(async (m) => (record(m), m.deliveryCount === 1 ? { kind: 'nak', delayMs: 500 } : { kind: 'ack' })).start();
      await publishJobs([1]);
      await waitFor(() => seen.length === 2, { what: 'redelivery' });
      expect(seen[1].delivery).toBe(2);
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(450);
    });

    it('never redelivers a termed message: it leaves the work queue at once', async () => {
      await fx.createConsumer({ ackWaitMs: 1_000 });
      const { record, seen } = recorder();
      await consumer(async (m) => (record(m), { kind: 'term', reason: 'poison' })).start();
      await publishJobs([1]);
      await waitFor(async () => seen.length === 1 && (await fx.messagesInStream()) === 0 && (await fx.ackPending()) === 0, {
        what: 'term to remove the message',
      });
      expect(logger.warnings.map((w) => w.msg)).toContain('message terminated');
    });

    it('redelivers after ack wait a message whose handler neither finishes nor calls working()', async () => {
      await fx.createConsumer({ ackWaitMs: 1_000 });
      const { record, seen } = recorder();
      const held = gate();
      releaseAll.push(held.open);
      await consumer(async (m) => {
        record(m);
        if (m.deliveryCount === 1) await held.promise;
        return { kind: 'ack' };
      }).start();
      await publishJobs([1]);
      await waitFor(() => seen.length === 2, { what: 'redelivery after ack wait' });
      expect(seen[1].delivery).toBe(2);
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(900);
    });

    it('does not redeliver while the handler calls working() within the ack wait', async () => {
      await fx.createConsumer({ ackWaitMs: 1_000 });
      const { record, seen } = recorder();
      let finished = false;
      await consumer(async (m) => {
        record(m);
        const heartbeat = setInterval(() => m.working(), 300);
        await new Promise((resolve) => setTimeout(resolve, 2_500));
        clearInterval(heartbeat);
        finished = true;
        return { kind: 'ack' };
      }).start();
      await publishJobs([1]);
      await waitFor(async () => finished && (await fx.messagesInStream()) === 0, { what: 'slow handler to ack' });
      expect(seen).toHaveLength(1);
    });

    it('holds no more messages than it has handlers, so the rest stay available to other replicas', async () => {
      await fx.createConsumer();
      const held = gate();
      releaseAll.push(held.open);
      let active = 0;
      await consumer(async () => {
        active++;
        await held.promise;
        active--;
        return { kind: 'ack' };
      }, 2).start();
      await publishJobs([1, 2, 3, 4, 5, 6]);
      await waitFor(() => active === 2, { what: 'two handlers busy' });
      const info = await conn.jsm.consumers.info(fx.stream, 'workers');
      expect(info.num_ack_pending).toBe(2);
      expect(info.num_pending).toBe(4);
      held.open();
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'all acked' });
    });

    it('counts messages by their weight: heavy ones take as many slots, and the rest stay in the stream', async () => {
      await fx.createConsumer();
      const held = gate();
      releaseAll.push(held.open);
      const started: number[] = [];
      const weighed = weighedConsumer(async (m) => {
        started.push(m.data.n);
        await held.promise;
        return { kind: 'ack' };
      });
      // Four messages of four: two fill the eight slots.
      await publishHeavy([1, 2, 3, 4]);
      await weighed.start();
      await waitFor(() => started.length === 2, { what: 'two heavy messages taken' });
      // No slot is free, so the pump asks for nothing more: two messages stay in the stream.
      const info = await conn.jsm.consumers.info(fx.stream, 'workers');
      expect({ ackPending: info.num_ack_pending, pending: info.num_pending }).toEqual({ ackPending: 2, pending: 2 });
      held.open();
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'all acked' });
      expect(started.slice().sort()).toEqual([1, 2, 3, 4]);
    });

    it('keeps its open pulls within its free slots: heavy messages arriving at an idle consumer fill them and no more', async () => {
      await fx.createConsumer();
      const held = gate();
      releaseAll.push(held.open);
      const started: number[] = [];
      const weighed = weighedConsumer(async (m) => {
        started.push(m.data.n);
        if (m.data.n > 4) await held.promise;
        return { kind: 'ack' };
      });
      await weighed.start();
      // Heavy messages handled at once, each freeing its slots and asking again: the idle consumer's
      // pulls then wait for no more than two messages of that weight.
      for (const n of [1, 2, 3, 4]) {
        await publishHeavy([n]);
        await waitFor(async () => started.length === n && (await fx.messagesInStream()) === 0, { what: `message ${n} acked` });
      }
      await publishHeavy([5, 6, 7, 8]);
      await waitFor(() => started.length >= 6, { what: 'two held heavy messages taken' });
      const info = await conn.jsm.consumers.info(fx.stream, 'workers');
      expect({ ackPending: info.num_ack_pending, pending: info.num_pending }).toEqual({ ackPending: 2, pending: 2 });
      held.open();
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'all acked' });
    });

    it('fills its last free slot while every other one is held by a long handler', async () => {
      // 16 slots ask again in steps of two: the one slot a quick message frees beside 15 long ones
      // must still be filled, not wait for a second slot to free up.
      await fx.createConsumer();
      const held = gate();
      releaseAll.push(held.open);
      const started: number[] = [];
      let quickDone = false;
      await consumer(async (m) => {
        started.push(m.data.n);
        if (m.data.n === 16) quickDone = true;
        else await held.promise;
        return { kind: 'ack' };
      }, 16).start();
      // One pull for all 16 slots, used up: 15 long handlers and a quick one that frees its slot.
      await publishJobs(Array.from({ length: 16 }, (_, i) => i + 1));
      await waitFor(async () => quickDone && (await fx.messagesInStream()) === 15, { what: 'the quick message acked beside 15 long ones' });
      await publishJobs([17]);
      await waitFor(() => started.includes(17), { timeoutMs: 5_000, what: 'the 17th message handled in the freed slot' });
      expect(started.slice().sort((a, b) => a - b)).toEqual(Array.from({ length: 17 }, (_, i) => i + 1));
    });

    it('never has more handlers running than the consumer max ack pending allows, across replicas', async () => {
      await fx.createConsumer({ maxAckPending: 3 });
      const held = gate();
      releaseAll.push(held.open);
      let active = 0;
      let peak = 0;
      const handler: Handler = async () => {
        peak = Math.max(peak, ++active);
        await held.promise;
        active--;
        return { kind: 'ack' };
      };
      await Promise.all([consumer(handler, 10).start(), consumer(handler, 10).start()]);
      await publishJobs(Array.from({ length: 12 }, (_, n) => n));
      await waitFor(() => active === 3, { what: 'three handlers busy' });
      expect((await conn.jsm.consumers.info(fx.stream, 'workers')).num_pending).toBe(9);
      held.open();
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'all acked' });
      expect(peak).toBe(3);
      expect(logger.warnings).toEqual([]);
    });

    it('stops redelivering after maxDeliver deliveries', async () => {
      await fx.createConsumer({ maxDeliver: 2 });
      const { record, deliveries } = recorder();
      await consumer(async (m) => (record(m), m.data.n === 1 ? { kind: 'nak' } : { kind: 'ack' }), 1).start();
      await publishJobs([1]);
      await waitFor(() => deliveries(1) === 2, { what: 'second delivery' });
      await waitFor(async () => (await fx.ackPending()) === 0, { what: 'nak of the last delivery' });
      // A nak without delay comes back at once, so a third delivery would beat this message.
      await publishJobs([2]);
      await waitFor(() => deliveries(2) === 1, { what: 'the next message' });
      expect(deliveries(1)).toBe(2);
    });

    it('terms a message whose payload fails the schema without calling the handler', async () => {
      await fx.createConsumer();
      const { record, seen } = recorder();
      await consumer(async (m) => (record(m), { kind: 'ack' })).start();
      await publishJson(conn.js, fx.subject, { n: 'one' });
      await conn.js.publish(fx.subject, 'not json');
      await publishJobs([2]);
      await waitFor(async () => seen.length === 1 && (await fx.messagesInStream()) === 0, { what: 'all settled' });
      expect(seen[0].n).toBe(2);
      const invalid = logger.warnings.filter((w) => w.msg === 'invalid message payload; terminated');
      expect(invalid.map((w) => (w.obj as { problem: string }).problem).sort()).toEqual([
        'body is not JSON',
        'payload does not match the schema',
      ]);
    });

    it('naks with a delay of about a second when the handler throws', async () => {
      await fx.createConsumer();
      const { record, seen } = recorder();
      await consumer(async (m) => {
        record(m);
        if (m.deliveryCount === 1) throw new Error('database down');
        return { kind: 'ack' };
      }).start();
      await publishJobs([1]);
      await waitFor(() => seen.length === 2, { what: 'redelivery after the failure' });
      expect(seen[1].at - seen[0].at).toBeGreaterThanOrEqual(900);
      expect(logger.errors[0].msg).toBe('message handler failed; message nak-ed with delay');
    });

    it('gives the handler the headers and the trace context of the publisher', async () => {
      context.setGlobalContextManager(new TestContextManager());
      propagation.setGlobalPropagator(new W3CTraceContextPropagator());
      try {
        await fx.createConsumer();
        const got: InboundMessage<Job>[] = [];
        await consumer(async (m) => (got.push(m), { kind: 'ack' })).start();
        const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: TraceFlags.SAMPLED };
        await context.with(trace.setSpanContext(ROOT_CONTEXT, spanContext), () =>
          publishJson(conn.js, fx.subject, { n: 1 }, { msgId: 'job-1', headers: { 'X-Tenant': 't1' } }),
        );
        await waitFor(() => got.length === 1, { what: 'delivery' });
        expect(trace.getSpanContext(got[0].traceContext())).toMatchObject({ traceId: spanContext.traceId, spanId: spanContext.spanId });
        expect(got[0].headers).toMatchObject({ 'x-tenant': 't1', 'nats-msg-id': 'job-1' });
        expect(got[0].subject).toBe(fx.subject);
      } finally {
        context.disable();
        propagation.disable();
      }
    });

    it('goes on consuming after the connection to NATS was lost and restored', async () => {
      await fx.createConsumer();
      const proxy = new CuttableProxy();
      await proxy.listen();
      const viaProxy = await MessagingConnection.connect({ servers: `nats://127.0.0.1:${proxy.port}`, name: 'messaging-consumer-test' });
      try {
        const { record, seen } = recorder();
        const c = new MessageConsumer<Job>({
          js: viaProxy.js,
          stream: fx.stream,
          durable: 'workers',
          schema: job,
          logger,
          concurrency: 2,
          pullExpiresMs: 2_000,
          handler: async (m) => (record(m), { kind: 'ack' }),
        });
        running.push(c);
        await c.start();
        await publishJobs([1]);
        await waitFor(() => seen.length === 1, { what: 'delivery before the cut' });
        await proxy.cut();
        await waitFor(() => !viaProxy.isConnected(), { what: 'disconnect' });
        await publishJobs([2]);
        await proxy.listen();
        await waitFor(() => seen.length === 2, { timeoutMs: 15_000, what: 'delivery after the reconnect' });
        expect(seen[1].n).toBe(2);
        await c.stop();
      } finally {
        await viaProxy.close();
        await proxy.cut();
      }
    });

    it('rejects with consumer_not_found when the durable was not provisioned', async () => {
      const error = await consumer(async () => ({ kind: 'ack' }), 1, 'missing')
        .start()
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MessagingError);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.ConsumerNotFound);
    });

    it('is safe to call twice and refuses to start again after stop', async () => {
      await fx.createConsumer();
      const c = consumer(async () => ({ kind: 'ack' }));
      await Promise.all([c.start(), c.start()]);
      await Promise.all([c.stop(), c.stop()]);
      const error = await c.start().catch((e: unknown) => e);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.ConsumerStopped);
    });
  });

  describe('stop', () => {
    it('lets in-flight handlers finish before the deadline and applies their dispositions', async () => {
      await fx.createConsumer();
      const held = gate();
      let started = 0;
      const c = consumer(async () => {
        started++;
        await held.promise;
        return { kind: 'ack' };
      });
      await c.start();
      await publishJobs([1, 2]);
      await waitFor(() => started === 2, { what: 'handlers started' });
      const stopped = c.stop(10_000);
      setTimeout(held.open, 100);
      await stopped;
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'acks' });
    });

    it('naks messages still in flight at the deadline, so another replica gets them at once', async () => {
      await fx.createConsumer({ ackWaitMs: 30_000 });
      const stuck = gate();
      releaseAll.push(stuck.open);
      let startedOnFirst = 0;
      const first = consumer(async () => {
        startedOnFirst++;
        await stuck.promise;
        return { kind: 'ack' };
      }, 2);
      await first.start();
      await publishJobs([1, 2]);
      await waitFor(() => startedOnFirst === 2, { what: 'both messages on the first replica' });

      const { record, seen } = recorder();
      await consumer(async (m) => (record(m), { kind: 'ack' }), 2).start();
      const stopAt = Date.now();
      await first.stop(200);
      await waitFor(() => seen.length === 2, { timeoutMs: 20_000, what: 'the second replica to take over' });
      expect(Date.now() - stopAt).toBeLessThan(5_000);
      expect(seen.every((s) => s.delivery === 2)).toBe(true);

      stuck.open();
      await waitFor(() => logger.warnings.some((w) => w.msg.startsWith('handler finished after the stop deadline')), {
        what: 'late handlers',
      });
      await waitFor(async () => (await fx.messagesInStream()) === 0, { what: 'acks of the second replica' });
    });
  });
});
