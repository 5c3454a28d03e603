import { connectForTests, StreamFixture } from '../test/jetstream-fixture';
import { MessagingConnection } from './connection';
import { MessagingError, MessagingErrorCode } from './messaging.errors';
import { deleteStreams, ensureConsumer, ensureStream } from './provisioning';

const NS = 1_000_000;

describe('provisioning', () => {
  let conn: MessagingConnection;
  let fx: StreamFixture;

  beforeAll(async () => {
    conn = await connectForTests('messaging-provisioning-test');
  });
  afterAll(() => conn.close());
  beforeEach(() => {
    fx = new StreamFixture(conn);
  });
  afterEach(() => fx.cleanup());

  describe(ensureStream.name, () => {
    it('creates the stream with the given limits and a 2 min duplicate window by default', async () => {
      await fx.createStream({ storage: 'file', maxAgeMs: 3_600_000 });
      const { config } = await conn.jsm.streams.info(fx.stream);
      expect(config).toMatchObject({
        subjects: [fx.subject],
        retention: 'workqueue',
        storage: 'file',
        max_age: 3_600_000 * NS,
        duplicate_window: 120_000 * NS,
        max_bytes: -1,
      });
    });

    it('changes nothing when called twice with the same spec', async () => {
      await fx.createStream();
      const before = await conn.jsm.streams.info(fx.stream);
      await fx.createStream();
      const after = await conn.jsm.streams.info(fx.stream);
      expect(after.created).toBe(before.created);
      expect(after.config).toEqual(before.config);
    });

    it('updates subjects and limits of an existing stream when the spec changed', async () => {
      await fx.createStream();
      const extra = `${fx.subject}.extra`;
      await fx.createStream({ subjects: [fx.subject, extra], maxAgeMs: 60_000, duplicateWindowMs: 30_000, maxBytes: 1 << 20 });
      const { config } = await conn.jsm.streams.info(fx.stream);
      expect(config.subjects.sort()).toEqual([fx.subject, extra].sort());
      expect(config).toMatchObject({ max_age: 60_000 * NS, duplicate_window: 30_000 * NS, max_bytes: 1 << 20 });
    });

    it('asks for the replicas of the spec (num_replicas, default 1)', async () => {
      await fx.createStream();
      expect((await conn.jsm.streams.info(fx.stream)).config.num_replicas).toBe(1);
      const other = `${fx.stream}_R1`;
      await fx.createStream({ name: other, subjects: [`${fx.subject}.r1`], replicas: 1 });
      expect((await conn.jsm.streams.info(other)).config.num_replicas).toBe(1);
    });

    it('names NATS_STREAM_REPLICAS when the server refuses the replicas (a single server takes only 1)', async () => {
      const error = await fx.createStream({ replicas: 3 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MessagingError);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.StreamConfigConflict);
      expect((error as MessagingError).message).toContain('3 replicas (NATS_STREAM_REPLICAS');
    });

    it('caps the duplicate window at the maximum age, which the server requires', async () => {
      await fx.createStream({ maxAgeMs: 10_000 });
      expect((await conn.jsm.streams.info(fx.stream)).config.duplicate_window).toBe(10_000 * NS);
    });

    it('refuses to turn a work queue into a limits stream in place', async () => {
      await fx.createStream();
      const error = await fx.createStream({ retention: 'limits' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MessagingError);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.StreamConfigConflict);
    });

    it('lets two replicas provision the same stream at once', async () => {
      await Promise.all([fx.createStream(), fx.createStream(), fx.createStream()]);
      expect((await conn.jsm.streams.info(fx.stream)).config.subjects).toEqual([fx.subject]);
    });
  });

  describe(ensureConsumer.name, () => {
    beforeEach(() => fx.createStream({ subjects: [`${fx.subject}.>`] }));

    it('creates a durable explicit-ack pull consumer that delivers all', async () => {
      await fx.createConsumer({ ackWaitMs: 1_500, maxDeliver: 3, maxAckPending: 7, filterSubject: `${fx.subject}.a` });
      const { config } = await conn.jsm.consumers.info(fx.stream, 'workers');
      expect(config).toMatchObject({
        durable_name: 'workers',
        ack_policy: 'explicit',
        deliver_policy: 'all',
        ack_wait: 1_500 * NS,
        max_deliver: 3,
        max_ack_pending: 7,
        filter_subject: `${fx.subject}.a`,
      });
      expect(config.deliver_subject).toBeUndefined();
    });

    it('changes nothing when called twice with the same spec', async () => {
      await fx.createConsumer({ backoffMs: [500, 1_000] });
      const before = await conn.jsm.consumers.info(fx.stream, 'workers');
      await fx.createConsumer({ backoffMs: [500, 1_000] });
      const after = await conn.jsm.consumers.info(fx.stream, 'workers');
      expect(after.created).toBe(before.created);
      expect(after.config).toEqual(before.config);
    });

    it('updates ack wait, limits, filter and backoff of an existing consumer', async () => {
      await fx.createConsumer({ filterSubject: `${fx.subject}.a` });
      await fx.createConsumer({ ackWaitMs: 5_000, maxDeliver: 4, maxAckPending: 9, filterSubject: `${fx.subject}.b` });
      let { config } = await conn.jsm.consumers.info(fx.stream, 'workers');
      expect(config).toMatchObject({ ack_wait: 5_000 * NS, max_deliver: 4, max_ack_pending: 9, filter_subject: `${fx.subject}.b` });

      await fx.createConsumer({ maxDeliver: 4, backoffMs: [300, 600, 900] });
      ({ config } = await conn.jsm.consumers.info(fx.stream, 'workers'));
      expect(config.backoff).toEqual([300 * NS, 600 * NS, 900 * NS]);
      expect(config.filter_subject || undefined).toBeUndefined();

      await fx.createConsumer({ ackWaitMs: 2_500, maxDeliver: 4 });
      ({ config } = await conn.jsm.consumers.info(fx.stream, 'workers'));
      expect(config.backoff ?? []).toEqual([]);
      expect(config.ack_wait).toBe(2_500 * NS);
    });

    it('refuses a backoff with as many steps as deliveries', async () => {
      const error = await fx.createConsumer({ maxDeliver: 2, backoffMs: [100, 200] }).catch((e: unknown) => e);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.InvalidOption);
    });

    it('refuses to turn a push consumer into a pull consumer', async () => {
      await conn.jsm.consumers.add(fx.stream, {
        durable_name: 'workers',
        ack_policy: 'explicit',
        deliver_subject: `deliver.${fx.id}`,
      });
      const error = await fx.createConsumer().catch((e: unknown) => e);
      expect((error as MessagingError).code).toBe(MessagingErrorCode.ConsumerConfigConflict);
    });
  });

  describe(deleteStreams.name, () => {
    it('deletes the named streams and ignores names that do not exist', async () => {
      await fx.createStream();
      await deleteStreams(conn.jsm, [fx.stream, `${fx.stream}_NEVER_CREATED`]);
      const names: string[] = [];
      for await (const name of conn.jsm.streams.names()) names.push(name);
      expect(names).not.toContain(fx.stream);
    });
  });
});
