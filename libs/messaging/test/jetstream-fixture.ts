import { once } from 'node:events';
import { AddressInfo, connect as tcpConnect, createServer, Server, Socket } from 'node:net';
import { uniqueSuffix } from '@trawl/testing';
import { z } from 'zod';
import { deleteStreams, ensureConsumer, ensureStream, MessagingConnection } from '../src/index';
import type { ConsumerSpec, StreamSpec } from '../src/index';

/** NATS of the integration suites (`NATS_URL`, else loopback). */
export function natsUrl(): string {
  return process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
}

/**
 * A connection for a suite. JetStream API calls get 15 s instead of 5 s: on a loaded two-core
 * machine (parallel suites, benchmarks) a stream delete in cleanup can take longer than 5 s.
 */
export function connectForTests(name: string): Promise<MessagingConnection> {
  return MessagingConnection.connect({ servers: natsUrl(), name, requestTimeoutMs: 15_000 });
}

export const job = z.object({ n: z.number().int() });
export type Job = z.infer<typeof job>;

/**
 * Streams of one test with unique names and subjects, deleted by `cleanup()` (and only those).
 * `subject` is the one subject of the default stream.
 */
export class StreamFixture {
  readonly id = uniqueSuffix();
  readonly stream = `TEST_MSG_${this.id.toUpperCase()}`;
  readonly subject = `test.msg.${this.id}.work`;
  private readonly streams = new Set<string>();

  constructor(readonly conn: MessagingConnection) {}

  /** Creates the default work-queue stream (or the given variant of it). */
  async createStream(over: Partial<StreamSpec> = {}): Promise<StreamSpec> {
    const spec: StreamSpec = { name: this.stream, subjects: [this.subject], retention: 'workqueue', storage: 'memory', ...over };
    this.streams.add(spec.name);
    await ensureStream(this.conn.jsm, spec);
    return spec;
  }

  /** Creates a durable pull consumer on the default stream, with test-friendly short timings. */
  async createConsumer(over: Partial<ConsumerSpec> = {}): Promise<ConsumerSpec> {
    const spec: ConsumerSpec = { stream: this.stream, durable: 'workers', ackWaitMs: 2_000, maxDeliver: 10, maxAckPending: 1_000, ...over };
    await ensureConsumer(this.conn.jsm, spec);
    return spec;
  }

  async messagesInStream(name = this.stream): Promise<number> {
    return (await this.conn.jsm.streams.info(name)).state.messages;
  }

  async ackPending(durable = 'workers'): Promise<number> {
    return (await this.conn.jsm.consumers.info(this.stream, durable)).num_ack_pending;
  }

  async cleanup(): Promise<void> {
    await deleteStreams(this.conn.jsm, [...this.streams]);
  }
}

/** Logger that records what the runners log, for assertions. */
export class RecordingLogger {
  readonly warnings: { obj: object; msg: string }[] = [];
  readonly errors: { obj: object; msg: string }[] = [];
  warn(obj: object, msg: string): void {
    this.warnings.push({ obj, msg });
  }
  error(obj: object, msg: string): void {
    this.errors.push({ obj, msg });
  }
}

/** A promise and its resolver, to hold a handler until the test lets it go. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** A TCP relay to NATS that a test can cut and restore, to see the client reconnect. */
export class CuttableProxy {
  private server?: Server;
  private readonly sockets = new Set<Socket>();
  port = 0;

  async listen(): Promise<void> {
    const target = new URL(natsUrl());
    this.server = createServer((client) => {
      const upstream = tcpConnect(Number(target.port || 4222), target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    this.server.listen(this.port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}
