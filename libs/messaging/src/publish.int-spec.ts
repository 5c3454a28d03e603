import { context, propagation, ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { TestContextManager } from '@trawl/testing';
import { connectForTests, CuttableProxy, StreamFixture } from '../test/jetstream-fixture';
import { MessagingConnection } from './connection';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { publishJson, publishManyHeld, publishManyJson } from './publish';

const spanContext = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: TraceFlags.SAMPLED };

describe('publish', () => {
  let conn: MessagingConnection;
  let fx: StreamFixture;

  beforeAll(async () => {
    conn = await connectForTests('messaging-publish-test');
    context.setGlobalContextManager(new TestContextManager());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  });
  afterAll(async () => {
    context.disable();
    propagation.disable();
    await conn.close();
  });
  beforeEach(async () => {
    fx = new StreamFixture(conn);
    await fx.createStream({ retention: 'limits' });
  });
  afterEach(() => fx.cleanup());

  async function storedMessage(seq: number) {
    const stored = await conn.jsm.streams.getMessage(fx.stream, { seq });
    if (!stored) throw new Error(`no message ${seq}`);
    return stored;
  }

  describe(publishJson.name, () => {
    it('stores the payload as JSON and answers its stream sequence', async () => {
      const first = await publishJson(conn.js, fx.subject, { n: 1, tags: ['a'] });
      const second = await publishJson(conn.js, fx.subject, { n: 2 });
      expect(second.seq).toBe(first.seq + 1);
      expect((await storedMessage(first.seq)).json()).toEqual({ n: 1, tags: ['a'] });
    });

    it('stores one message when the same msg id is published twice', async () => {
      const first = await publishJson(conn.js, fx.subject, { n: 1 }, { msgId: 'order-1' });
      const again = await publishJson(conn.js, fx.subject, { n: 1 }, { msgId: 'order-1' });
      expect(first.duplicate).toBe(false);
      expect(again).toEqual({ seq: first.seq, duplicate: true });
      expect(await fx.messagesInStream()).toBe(1);
    });

    it('sends the active trace context as a W3C traceparent header', async () => {
      const active = trace.setSpanContext(ROOT_CONTEXT, spanContext);
      const { seq } = await context.with(active, () => publishJson(conn.js, fx.subject, { n: 1 }, { headers: { 'x-tenant': 't1' } }));
      const stored = await storedMessage(seq);
      expect(stored.header.get('traceparent')).toBe(`00-${spanContext.traceId}-${spanContext.spanId}-01`);
      expect(stored.header.get('x-tenant')).toBe('t1');
    });

    it('adds no headers when there is no active span and none are given', async () => {
      const { seq } = await publishJson(conn.js, fx.subject, { n: 1 });
      const stored = await storedMessage(seq);
      expect(stored.header?.get('traceparent') ?? '').toBe('');
    });

    it('rejects with publish_failed when no stream stores the subject', async () => {
      const error = await publishJson(conn.js, `nowhere.${fx.id}`, { n: 1 }, { timeoutMs: 1_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MessagingError);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.PublishFailed);
    });
  });

  describe(publishManyJson.name, () => {
    it('stores every item in order', async () => {
      const items = Array.from({ length: 2_000 }, (_, n) => ({ subject: fx.subject, payload: { n } }));
      await publishManyJson(conn.js, items);
      expect(await fx.messagesInStream()).toBe(2_000);
      const first = (await conn.jsm.streams.info(fx.stream)).state.first_seq;
      expect((await storedMessage(first)).json()).toEqual({ n: 0 });
      expect((await storedMessage(first + 1_999)).json()).toEqual({ n: 1_999 });
    });

    it('stores an item once when it is published again with the same msg id', async () => {
      const items = Array.from({ length: 300 }, (_, n) => ({ subject: fx.subject, payload: { n }, msgId: `task-${n}` }));
      await publishManyJson(conn.js, items);
      await publishManyJson(conn.js, items.slice(0, 100));
      expect(await fx.messagesInStream()).toBe(300);
    });

    it('keeps at most maxOutstanding publishes waiting for their ack', async () => {
      const items = Array.from({ length: 50 }, (_, n) => ({ subject: fx.subject, payload: { n } }));
      const publish = conn.js.publish.bind(conn.js);
      let outstanding = 0;
      let peak = 0;
      const counting = Object.create(conn.js, {
        publish: {
          value: async (...args: Parameters<typeof publish>) => {
            peak = Math.max(peak, ++outstanding);
            try {
              return await publish(...args);
            } finally {
              outstanding--;
            }
          },
        },
      });
      await publishManyJson(counting, items, { maxOutstanding: 8 });
      expect(peak).toBe(8);
      expect(await fx.messagesInStream()).toBe(50);
    });

    it('publishes the others and then rejects when some items cannot be stored', async () => {
      const items = [
        { subject: fx.subject, payload: { n: 1 } },
        { subject: `nowhere.${fx.id}`, payload: { n: 2 } },
        { subject: fx.subject, payload: { n: 3 } },
      ];
      const error = await publishManyJson(conn.js, items, { timeoutMs: 1_000 }).catch((e: unknown) => e);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.PublishFailed);
      expect((error as MessagingError).message).toMatch(/^1 of 3 /);
      expect(await fx.messagesInStream()).toBe(2);
    });

    it('carries the active trace context on every item', async () => {
      const active = trace.setSpanContext(ROOT_CONTEXT, spanContext);
      const items = [1, 2, 3].map((n) => ({ subject: fx.subject, payload: { n } }));
      await context.with(active, () => publishManyJson(conn.js, items));
      const first = (await conn.jsm.streams.info(fx.stream)).state.first_seq;
      for (const seq of [first, first + 1, first + 2]) {
        expect((await storedMessage(seq)).header.get('traceparent')).toContain(spanContext.traceId);
      }
    });
  });

  describe(publishManyHeld.name, () => {
    it('holds what NATS refused while it was away and publishes it once it is back, each message once', async () => {
      const proxy = new CuttableProxy();
      await proxy.listen();
      const cut = await MessagingConnection.connect({
        servers: `nats://127.0.0.1:${proxy.port}`,
        name: 'messaging-held-test',
        requestTimeoutMs: 500,
      });
      try {
        await proxy.cut();
        const held: number[] = [];
        const items = [1, 2, 3].map((n) => ({ subject: fx.subject, payload: { n }, msgId: `held-${fx.id}-${n}` }));
        const publishing = publishManyHeld(cut, items, { holdMs: 20_000, onHold: (_error, count) => held.push(count) });
        setTimeout(() => void proxy.listen(), 1_500);
        await publishing;
        expect(held).toEqual([3]);
        // Publishes buffered by the client during the outage and the republished ones are one message each.
        expect(await fx.messagesInStream()).toBe(3);
      } finally {
        await cut.close();
        await proxy.cut();
      }
    });

    it('rejects with publish_failed once holdMs has passed', async () => {
      const proxy = new CuttableProxy();
      await proxy.listen();
      const cut = await MessagingConnection.connect({
        servers: `nats://127.0.0.1:${proxy.port}`,
        name: 'messaging-held-test',
        requestTimeoutMs: 300,
      });
      try {
        await proxy.cut();
        const error = await publishManyHeld(cut, [{ subject: fx.subject, payload: { n: 1 } }], { holdMs: 1_000 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MessagingError);
        expect((error as MessagingError).code).toBe(MessagingErrorCode.PublishFailed);
      } finally {
        await cut.close();
        await proxy.cut();
      }
    });
  });
});
