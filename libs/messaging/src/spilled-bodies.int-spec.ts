import { connectForTests, CuttableProxy, StreamFixture } from '../test/jetstream-fixture';
import { waitFor } from '@trawl/testing';
import { BODY_CHUNK_BYTES } from './body-chunks';
import { ByteBudget } from './byte-budget';
import { MessagingConnection } from './connection';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { SpilledBodies } from './spilled-bodies';

/** Bytes that are not text, so a wrong encoding or a lost chunk shows. */
function bodyOf(bytes: number, seed = 1): Buffer {
  const body = Buffer.alloc(bytes);
  let x = seed;
  for (let i = 0; i < bytes; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    body[i] = x >>> 16;
  }
  return body;
}

describe(SpilledBodies.name, () => {
  let conn: MessagingConnection;
  let fx: StreamFixture;
  let bodies: SpilledBodies;
  let stemCount = 0;
  const stem = () => `${fx.subject}.claim${++stemCount}`;

  beforeAll(async () => {
    conn = await connectForTests('messaging-spilled-bodies-test');
  });
  afterAll(() => conn.close());
  beforeEach(async () => {
    fx = new StreamFixture(conn);
    await fx.createStream({ subjects: [`${fx.subject}.>`], retention: 'limits', maxAgeMs: 60_000 });
    bodies = new SpilledBodies({ messaging: conn, stream: fx.stream });
  });
  afterEach(() => fx.cleanup());

  describe('spill', () => {
    it('stores a 10 MiB body as chunks of BODY_CHUNK_BYTES that read back byte for byte', async () => {
      const body = bodyOf(10 * 1024 * 1024 + 3);
      const where = stem();
      const ref = await bodies.spill(where, body);
      expect(ref).toEqual({ chunks: Math.ceil(body.length / BODY_CHUNK_BYTES), bytes: body.length });
      expect(await fx.messagesInStream()).toBe(ref.chunks);
      expect((await bodies.read(where, ref))!.equals(body)).toBe(true);
    });

    it('stores a string as UTF-8, counting bytes, not characters', async () => {
      const html = `<p>${'café € 😀 "quoted" \\ '.repeat(40_000)}</p>`;
      const where = stem();
      const ref = await bodies.spill(where, html);
      expect(ref.bytes).toBe(Buffer.byteLength(html, 'utf8'));
      expect((await bodies.read(where, ref))!.toString('utf8')).toBe(html);
    });

    it('stores nothing twice when the same spill is published again (msg id = chunk subject)', async () => {
      const body = bodyOf(1_200_000);
      const where = stem();
      const first = await bodies.spill(where, body);
      const again = await bodies.spill(where, body);
      expect(again).toEqual(first);
      expect(await fx.messagesInStream()).toBe(first.chunks);
    });

    it('refuses an empty body', async () => {
      await expect(bodies.spill(stem(), Buffer.alloc(0))).rejects.toMatchObject({ code: MessagingErrorCode.InvalidOption });
    });

    it('spills a body larger than its whole budget alone instead of waiting forever', async () => {
      const budget = new ByteBudget(1024 * 1024);
      const budgeted = new SpilledBodies({ messaging: conn, stream: fx.stream, budget });
      const [a, b] = [stem(), stem()];
      const refs = await Promise.all([budgeted.spill(a, bodyOf(3_000_000, 2)), budgeted.spill(b, bodyOf(3_000_000, 3))]);
      expect((await budgeted.read(a, refs[0]))!.equals(bodyOf(3_000_000, 2))).toBe(true);
      expect((await budgeted.read(b, refs[1]))!.equals(bodyOf(3_000_000, 3))).toBe(true);
      expect(budget.heldBytes).toBe(0);
    });

    it('fails with publish_failed when no stream stores the subject', async () => {
      const nowhere = new SpilledBodies({ messaging: conn, stream: fx.stream });
      await expect(nowhere.spill(`test.nobody.${stemCount}`, bodyOf(10))).rejects.toMatchObject({ code: MessagingErrorCode.PublishFailed });
    });
  });

  describe('read', () => {
    it('answers null, not an error, once the body is purged', async () => {
      const where = stem();
      const ref = await bodies.spill(where, bodyOf(700_000));
      await bodies.purge(where);
      expect(await bodies.read(where, ref)).toBeNull();
    });

    it('answers null when the chunks are not the ones the ref describes (another spill of the stem)', async () => {
      const where = stem();
      await bodies.spill(where, bodyOf(600_000));
      expect(await bodies.read(where, { chunks: 2, bytes: 600_001 })).toBeNull();
      expect(await bodies.read(where, { chunks: 3, bytes: 900_000 })).toBeNull();
    });

    it('answers null once the stream max age removed the chunks (the safety net)', async () => {
      const short = new StreamFixture(conn);
      await short.createStream({ subjects: [`${short.subject}.>`], retention: 'limits', maxAgeMs: 1_000, duplicateWindowMs: 1_000 });
      try {
        const store = new SpilledBodies({ messaging: conn, stream: short.stream });
        const where = `${short.subject}.old`;
        const ref = await store.spill(where, bodyOf(100_000));
        await waitFor(async () => (await store.read(where, ref)) === null, {
          timeoutMs: 10_000,
          intervalMs: 200,
          what: 'the chunks to expire',
        });
      } finally {
        await short.cleanup();
      }
    });

    it('fails with body_store_unavailable, not null, when NATS does not answer', async () => {
      const proxy = new CuttableProxy();
      await proxy.listen();
      const cut = await MessagingConnection.connect({
        servers: `nats://127.0.0.1:${proxy.port}`,
        name: 'spilled-bodies-cut',
        requestTimeoutMs: 500,
      });
      try {
        const where = stem();
        const ref = await bodies.spill(where, bodyOf(100_000));
        await proxy.cut();
        const error = await new SpilledBodies({ messaging: cut, stream: fx.stream }).read(where, ref).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MessagingError);
        expect((error as MessagingError).code).toBe(MessagingErrorCode.BodyStoreUnavailable);
      } finally {
        await cut.close();
      }
    });
  });

  describe('purge', () => {
    it('removes every chunk under the stem, every spill of it included, and nothing else', async () => {
      const claim = stem();
      const other = stem();
      await bodies.spill(`${claim}.first`, bodyOf(1_100_000));
      await bodies.spill(`${claim}.second`, bodyOf(600_000));
      const kept = await bodies.spill(other, bodyOf(600_000));
      expect(await bodies.purge(claim)).toBe(3 + 2);
      expect(await fx.messagesInStream()).toBe(kept.chunks);
      expect(await bodies.read(other, kept)).not.toBeNull();
    });
  });
});
