import { INestApplicationContext } from '@nestjs/common';
import pino from 'pino';
import {
  batchMessagingDefinitions,
  batchTaskMsgId,
  batchTaskResultBatchV1,
  BatchTaskResultV1,
  BatchTaskV1,
  messagingTopology,
  taskMessages,
} from '@trawl/contracts';
import { deleteStreams, ensureConsumer, ensureStream, MessageConsumer, MessagingConnection, publishManyJson } from '@trawl/messaging';
import { uniqueSuffix, waitFor } from '@trawl/testing';
import { fixtureHostMap, FixtureWeb, startFixtureWeb } from '../../../test/fixtures/web';
import { BatchTaskConsumer } from '../src/batch-tasks/batch-task.consumer';
import { WorkerMetrics } from '../src/worker.metrics';
import { startWorkerApp } from './support/worker-app';

const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const RUN_ID = '3f1c2b4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const TENANT_ID = '9a8b7c6d-5e4f-4a3b-8c1d-0e9f8a7b6c5d';

/** A fetch worker alone, batch tasks published to it as a scheduler would, its results read as a scheduler would. */
describe(`${BatchTaskConsumer.name}, several tasks to a message`, () => {
  const prefix = `bt${uniqueSuffix()}`;
  const topology = messagingTopology(prefix);
  const results: BatchTaskResultV1[] = [];
  let web: FixtureWeb;
  let messaging: MessagingConnection;
  let scheduler: MessageConsumer<{ v: 1; results: BatchTaskResultV1[] }>;
  let worker: INestApplicationContext | undefined;

  beforeAll(async () => {
    web = await startFixtureWeb({ bigSitePages: 10 });
    messaging = await MessagingConnection.connect({ servers: NATS_URL, name: 'batch-task-test' });
    const definitions = batchMessagingDefinitions(topology);
    for (const stream of definitions.streams) await ensureStream(messaging.jsm, stream);
    for (const consumer of definitions.consumers) await ensureConsumer(messaging.jsm, consumer);
    scheduler = new MessageConsumer({
      js: messaging.js,
      stream: topology.streams.batchResults,
      durable: topology.consumers.batchSchedulers,
      schema: batchTaskResultBatchV1,
      logger: pino({ level: 'silent' }),
      concurrency: 4,
      handler: async (message) => (results.push(...message.data.results), { kind: 'ack' }),
    });
    await scheduler.start();
    worker = await startWorkerApp({
      NATS_PREFIX: prefix,
      EGRESS_HOST_MAP: fixtureHostMap(),
      BROWSERS: '0',
      BATCH_CONCURRENCY: '4',
      SHUTDOWN_TIMEOUT_MS: '1000',
    });
  }, 60_000);

  afterAll(async () => {
    await worker?.close();
    await scheduler?.stop(2_000);
    await deleteStreams(messaging.jsm, Object.values(topology.streams));
    await messaging.close();
    await web?.close();
  });

  function task(seq: number, url: string): BatchTaskV1 {
    return {
      v: 1,
      run_id: RUN_ID,
      seq,
      attempt: 1,
      tenant_id: TENANT_ID,
      url,
      method: 'GET',
      headers: {},
      options: { js_render: false, premium_proxy: false, json_response: false, original_status: false },
      timeout_ms: 30_000,
      lease_until: Date.now() + 600_000,
      max_body_bytes: 1024 * 1024,
    };
  }

  it('runs the tasks side by side, answers those done by the stop, and hands the others back alone', async () => {
    const gate = uniqueSuffix();
    const tasks = [
      task(1, web.url('big.test', '/p/1')),
      task(2, web.url('slow.test', `/slow/1?hold=${gate}`)),
      task(3, web.url('big.test', '/p/2')),
    ];
    const [message] = taskMessages(tasks, topology.subjects.batchTask, 8, { task: (t) => t, msgId: batchTaskMsgId });
    await publishManyJson(messaging.js, [message]);
    await waitFor(() => results.length === 2 && web.hits('slow.test', `/slow/1?hold=${gate}`) === 1, {
      what: 'the quick tasks answered while the held one is in flight',
    });
    expect(results.map((r) => [r.seq, r.status_code]).sort()).toEqual([
      [1, 200],
      [3, 200],
    ]);

    // The held page never answers before the stop: its task is cancelled and waits alone for the next worker.
    const app = worker!;
    worker = undefined;
    const handedBackAlone = app.get(WorkerMetrics).batchTasksHandedBackAlone;
    await app.close();
    web.release(gate);
    expect((await handedBackAlone.get()).values.map((v) => v.value)).toEqual([1]);
    const durable = await messaging.js.consumers.get(topology.streams.batchWork, topology.consumers.batchWorkers);
    const alone = await durable.next({ expires: 3_000 });
    expect(alone?.json()).toEqual(tasks[1]);
    expect(alone?.headers?.get('Nats-Msg-Id')).toBe(`${message.msgId}/2`);
    alone?.ack();
    expect(await durable.next({ expires: 1_000 })).toBeNull();
    expect(results.map((r) => r.seq).sort()).toEqual([1, 3]);
  }, 30_000);
});
