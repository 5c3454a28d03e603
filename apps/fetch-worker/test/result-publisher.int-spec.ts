import { deleteStreams, ensureStream, MessagingConnection } from '@trawl/messaging';
import { uniqueSuffix } from '@trawl/testing';
import { ResultPublisher } from '../src/crawl-pages/result-publisher';

interface Result {
  n: number;
}

/** Results gathered into messages on a real JetStream stream: what one message holds for each linger. */
describe('ResultPublisher (JetStream)', () => {
  let conn: MessagingConnection;
  const id = uniqueSuffix();
  const stream = `TEST_RESULTS_${id.toUpperCase()}`;
  const subject = `test.results.${id}`;

  beforeAll(async () => {
    conn = await MessagingConnection.connect({
      servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
      name: 'result-publisher-test',
      requestTimeoutMs: 15_000,
    });
    await ensureStream(conn.jsm, { name: stream, subjects: [subject], retention: 'limits', storage: 'memory' });
  });

  afterAll(async () => {
    await deleteStreams(conn.jsm, [stream]);
    await conn.close();
  });

  async function storedBatches(): Promise<number[][]> {
    // A purge keeps the sequence going: read from the first message left.
    const { messages, first_seq } = (await conn.jsm.streams.info(stream)).state;
    const batches: number[][] = [];
    for (let seq = first_seq; seq < first_seq + messages; seq++) {
      const stored = await conn.jsm.streams.getMessage(stream, { seq });
      if (stored) batches.push(stored.json<{ v: 1; results: Result[] }>().results.map((r) => r.n));
    }
    return batches;
  }

  beforeEach(() => conn.jsm.streams.purge(stream));

  it.each([
    ['0 ms: the rest of the event-loop turn', 0],
    ['5 ms', 5],
  ])('with a linger of %s, sends the results of one turn as one message and a later one as another', async (_name, lingerMs) => {
    const publisher = new ResultPublisher<Result>({ messaging: conn, subject, estimate: () => 100, lingerMs });
    // Resolved only once the message holding each result is stored.
    await Promise.all([1, 2, 3].map((n) => publisher.publish({ n })));
    await publisher.publish({ n: 4 });
    expect(await storedBatches()).toEqual([[1, 2, 3], [4]]);
  });

  it('sends at once when a message is full, without waiting out the linger', async () => {
    const publisher = new ResultPublisher<Result>({ messaging: conn, subject, estimate: () => 100, maxResults: 2, lingerMs: 60_000 });
    await Promise.all([1, 2].map((n) => publisher.publish({ n })));
    expect(await storedBatches()).toEqual([[1, 2]]);
  });
});
