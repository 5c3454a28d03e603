import { headers as natsHeaders, Msg, NatsConnection, Subscription } from '@nats-io/nats-core';
import { bodyChunkBytes } from '../body-chunks';
import { consoleLogger, MessagingLogger } from '../inbound-message';
import { MessagingError, MessagingErrorCode } from '../messaging.errors';
import {
  ACCEPT_WITHIN_HEADER,
  CALL_HEADER,
  callerHeaders,
  cancelSubject,
  CHUNKS_HEADER,
  HEAD_BYTES_HEADER,
  KIND_HEADER,
  ReplyKind,
  SEQ_HEADER,
  WHOLE_HEADER,
} from './protocol';
import { TurnPublisher } from './turn-publisher';

export interface StreamedRpcServerOptions {
  subject: string;
  /** Queue group: each request goes to one member. */
  queue: string;
  /** Calls handled at once; beyond it the server answers `busy` and the client asks another member. */
  capacity: number;
  /** Interval of the "still working" beat, in ms (default 2 000); keep it well under the client's silence timeout. */
  heartbeatMs?: number;
  /** Largest body chunk, in bytes (default `bodyChunkBytes`: `BODY_CHUNK_BYTES`, 512 KiB, less on a server with a smaller max_payload). */
  chunkBytes?: number;
  logger?: MessagingLogger;
}

export interface RpcRequest {
  payload: Uint8Array;
  /** The caller's headers, keys lower-case (trace context included). */
  headers: Record<string, string>;
  /** Aborts when the caller cancels; the handler should stop early but still resolve. */
  signal: AbortSignal;
}

export interface RpcReply {
  head: Uint8Array;
  body: Buffer;
}

export type RpcHandler = (request: RpcRequest) => Promise<RpcReply>;

/**
 * Serves a streamed request/reply subject (see `protocol.ts`) with bounded concurrency: a full
 * server answers `busy` at once instead of queueing, so the client can try another member of the
 * queue group while this one works, and a dead server is noticed by its missing beats.
 */
export class StreamedRpcServer {
  private readonly calls = new Map<string, AbortController>();
  private readonly settled = new Set<Promise<void>>();
  /** Replies, in order, several calls' in one socket write when they are ready in one turn. */
  private readonly turns = new TurnPublisher();
  private subscriptions: Subscription[] = [];
  private stopping?: Promise<void>;
  private started = false;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: StreamedRpcServerOptions,
  ) {
    if (!Number.isInteger(options.capacity) || options.capacity < 1) {
      throw new MessagingError(MessagingErrorCode.InvalidOption, `capacity must be a positive integer, got ${options.capacity}`);
    }
  }

  /** Calls being handled now. */
  inFlight(): number {
    return this.calls.size;
  }

  start(handler: RpcHandler): void {
    if (this.stopping) throw new MessagingError(MessagingErrorCode.ConsumerStopped, 'this server was stopped; create a new one');
    if (this.started) return;
    this.started = true;
    this.subscriptions = [
      this.nc.subscribe(this.options.subject, {
        queue: this.options.queue,
        callback: (error, msg) => {
          if (!error) this.receive(msg, handler);
        },
      }),
      this.nc.subscribe(cancelSubject(this.options.subject), {
        callback: (error, msg) => {
          if (!error) this.calls.get(msg.string())?.abort(new Error('cancelled by the caller'));
        },
      }),
    ];
  }

  /**
   * Stops taking calls (members still subscribed meanwhile answer `busy`), then waits up to
   * `deadlineMs` for calls in flight, aborting those left so they answer quickly. Safe to call twice.
   */
  stop(deadlineMs: number): Promise<void> {
    this.stopping ??= this.drain(deadlineMs);
    return this.stopping;
  }

  private async drain(deadlineMs: number): Promise<void> {
    // Unsubscribing the request subject first hands new calls to other members at once.
    this.subscriptions[0]?.unsubscribe();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, deadlineMs)));
    await Promise.race([Promise.allSettled([...this.settled]), deadline]);
    clearTimeout(timer);
    for (const controller of this.calls.values()) controller.abort(new Error('server stopping'));
    await Promise.race([Promise.allSettled([...this.settled]), new Promise((r) => setTimeout(r, 1_000))]);
    for (const sub of this.subscriptions) sub.unsubscribe();
  }

  private receive(msg: Msg, handler: RpcHandler): void {
    const callId = msg.headers?.get(CALL_HEADER) ?? '';
    if (!msg.reply || !callId) return;
    const reply = msg.reply;
    if (this.stopping || this.calls.size >= this.options.capacity) {
      this.send(reply, callId, 'busy');
      return;
    }
    const controller = new AbortController();
    this.calls.set(callId, controller);
    // An answer sent within the client's window implies the accept (protocol.ts): most calls need none.
    // Capped: a timer past 2^31 ms would fire at once.
    const acceptWithin = Math.min(Number(msg.headers?.get(ACCEPT_WITHIN_HEADER) ?? 0), 60_000);
    const accept = acceptWithin > 0 ? setTimeout(() => this.send(reply, callId, 'accepted'), acceptWithin) : undefined;
    if (!accept) this.send(reply, callId, 'accepted');
    const beat = setInterval(() => {
      // A closed connection beats for nobody (and would keep the process alive).
      if (this.nc.isClosed()) clearInterval(beat);
      else this.send(reply, callId, 'beat');
    }, this.options.heartbeatMs ?? 2_000);
    const done = this.handle(handler, msg, reply, callId, controller.signal).finally(() => {
      clearTimeout(accept);
      clearInterval(beat);
      this.calls.delete(callId);
      this.settled.delete(done);
    });
    this.settled.add(done);
  }

  private async handle(handler: RpcHandler, msg: Msg, reply: string, callId: string, signal: AbortSignal): Promise<void> {
    let result: RpcReply;
    try {
      result = await handler({ payload: msg.data, headers: callerHeaders(msg.headers), signal });
    } catch (error) {
      (this.options.logger ?? consoleLogger).error({ err: error, subject: this.options.subject, call: callId }, 'rpc handler failed');
      this.send(reply, callId, 'failed', new TextEncoder().encode((error as Error).message ?? 'handler failed'));
      return;
    }
    const size = this.chunkBytes();
    if (msg.headers?.get(WHOLE_HEADER) === '1' && result.head.length + result.body.length <= size) {
      // One message instead of two: most pages fit (see protocol.ts).
      this.send(reply, callId, 'whole', Buffer.concat([result.head, result.body]), { [HEAD_BYTES_HEADER]: String(result.head.length) });
      return;
    }
    const chunks = Math.ceil(result.body.length / size);
    this.send(reply, callId, 'head', result.head, { [CHUNKS_HEADER]: String(chunks) });
    for (let seq = 0; seq < chunks; seq += 1) {
      this.send(reply, callId, 'chunk', result.body.subarray(seq * size, (seq + 1) * size), { [SEQ_HEADER]: String(seq) });
    }
  }

  private chunkBytes(): number {
    if (this.options.chunkBytes) return this.options.chunkBytes;
    // The same pieces as a spilled body's: a reply streams what a durable result spills.
    return bodyChunkBytes(this.nc);
  }

  private send(reply: string, callId: string, kind: ReplyKind, payload?: Uint8Array, extra: Record<string, string> = {}): void {
    if (this.nc.isClosed()) return;
    const h = natsHeaders();
    h.set(KIND_HEADER, kind);
    h.set(CALL_HEADER, callId);
    for (const [key, value] of Object.entries(extra)) h.set(key, value);
    this.turns.publish(
      () => this.nc.publish(reply, payload, { headers: h }),
      // A closed connection: the client notices the silence; nothing else to do here.
      (error) => (this.options.logger ?? consoleLogger).warn({ err: error, call: callId, kind }, 'rpc reply not sent'),
    );
  }
}
