import { createInbox, headers as natsHeaders, Msg, NatsConnection, nuid, Subscription } from '@nats-io/nats-core';
import { MessagingError, MessagingErrorCode } from '../messaging.errors';
import { activeTraceHeaders } from '../trace-context';
import { TurnPublisher } from './turn-publisher';
import {
  ACCEPT_WITHIN_HEADER,
  CALL_HEADER,
  cancelSubject,
  CHUNKS_HEADER,
  HEAD_BYTES_HEADER,
  replyKind,
  SEQ_HEADER,
  WHOLE_HEADER,
} from './protocol';

export interface StreamedRpcClientOptions {
  /** Time for a server to accept or refuse a call before another is asked, in ms (default 2 000). */
  acceptTimeoutMs?: number;
  /** Longest gap between a server's messages after it accepted before it counts as lost, in ms (default 10 000). */
  silenceTimeoutMs?: number;
  /** Servers that may answer `busy` (or not answer) before the call fails with `rpc_busy` (default 5). */
  busyRetries?: number;
  /**
   * Told each time a server asked does not take a call, and why: `busy` (it had no free slot) or
   * `late` (it neither accepted nor refused within `acceptTimeoutMs`: lost, or stalled). The call
   * is then asked of another server, or fails with `rpc_busy` once `busyRetries` are spent.
   */
  onNotTaken?: (reason: NotTakenReason) => void;
}

/** Why a server did not take a call (see `StreamedRpcClientOptions.onNotTaken`). */
export type NotTakenReason = 'busy' | 'late';

export interface CallOptions {
  /** Sent with the request; trace context of the active span is added. */
  headers?: Record<string, string>;
  /** Cancels the call: the server is told and the call rejects with `rpc_cancelled` once the server's handler ended. */
  signal?: AbortSignal;
  /**
   * Whether running the call twice is harmless (default true). Then a server may hold back its
   * `accepted` (protocol.ts), and a server lost before accepting has the call asked of another
   * server. When false the server accepts at once, so that a server lost after it took the call
   * fails it with `rpc_worker_lost` instead: the work it may have started is never started again.
   */
  idempotent?: boolean;
}

export interface StreamedReply {
  head: Uint8Array;
  body: Buffer;
}

const BUSY_PAUSE_MS = 20;

type Phase = 'asking' | 'accepted' | 'receiving';

/** A call waiting for its replies on the shared inbox. */
interface PendingCall {
  onMessage(msg: Msg): void;
  /** The inbox subscription ended (connection closed): no reply can come any more. */
  onInboxClosed(): void;
}

/**
 * Client of `StreamedRpcServer`: one request, one server of the queue group, a reply of any size.
 * Always settles: with the reply, or a `MessagingError` (`rpc_no_responders`, `rpc_busy`,
 * `rpc_worker_lost`, `rpc_cancelled`, `rpc_remote_failure`) — never hangs on a dead server.
 * Replies of all calls arrive on one wildcard subscription, told apart by the last token of the
 * subject, which is the call id (see `protocol.ts`).
 */
export class StreamedRpcClient {
  private readonly acceptTimeoutMs: number;
  private readonly silenceTimeoutMs: number;
  private readonly busyRetries: number;
  private readonly onNotTaken: (reason: NotTakenReason) => void;
  /** How long a server may hold back its `accepted` (see protocol.ts): a quarter of the accept timeout. */
  private readonly acceptWithin: string;
  private readonly pending = new Map<string, PendingCall>();
  /** Requests and cancels, in order, several calls' in one socket write when they come in one turn. */
  private readonly turns = new TurnPublisher();
  private inbox?: { prefix: string; sub: Subscription };

  constructor(
    private readonly nc: NatsConnection,
    options: StreamedRpcClientOptions = {},
  ) {
    this.acceptTimeoutMs = options.acceptTimeoutMs ?? 2_000;
    this.silenceTimeoutMs = options.silenceTimeoutMs ?? 10_000;
    this.busyRetries = options.busyRetries ?? 5;
    this.onNotTaken = options.onNotTaken ?? (() => undefined);
    this.acceptWithin = String(Math.floor(this.acceptTimeoutMs / 4));
  }

  call(subject: string, payload: Uint8Array, options: CallOptions = {}): Promise<StreamedReply> {
    return new Promise<StreamedReply>((resolve, reject) => {
      let callId = '';
      let phase: Phase = 'asking';
      let tries = 0;
      const notTaken: Record<NotTakenReason, number> = { busy: 0, late: 0 };
      let timer: NodeJS.Timeout | undefined;
      let head: Uint8Array | undefined;
      let chunks: Buffer[] = [];
      let expected = 0;
      let cancelled = false;

      const finish = (error: MessagingError | undefined, reply?: StreamedReply): void => {
        clearTimeout(timer);
        this.pending.delete(callId);
        options.signal?.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(reply as StreamedReply);
      };
      const fail = (code: MessagingErrorCode, message: string): void => finish(new MessagingError(code, message));
      const cancelled_ = (): void => fail(MessagingErrorCode.RpcCancelled, `call to ${subject} cancelled by the caller`);

      const arm = (ms: number, onTimeout: () => void): void => {
        clearTimeout(timer);
        timer = setTimeout(onTimeout, ms);
      };
      const ask = (): void => {
        if (tries > this.busyRetries) {
          fail(
            MessagingErrorCode.RpcBusy,
            `every server of ${subject} asked (${tries}) was busy (${notTaken.busy}) or did not accept within ${this.acceptTimeoutMs} ms (${notTaken.late})`,
          );
          return;
        }
        tries += 1;
        // A new id per try: answers of an earlier try arrive on another subject and are dropped.
        this.pending.delete(callId);
        callId = nuid.next();
        phase = 'asking';
        const h = natsHeaders();
        for (const [key, value] of Object.entries({ ...activeTraceHeaders(), ...options.headers })) h.set(key, value);
        h.set(CALL_HEADER, callId);
        h.set(WHOLE_HEADER, '1');
        if (options.idempotent !== false) h.set(ACCEPT_WITHIN_HEADER, this.acceptWithin);
        const noSend = (error: unknown) =>
          fail(MessagingErrorCode.RpcNoResponders, `could not send to ${subject}: ${(error as Error).message}`);
        try {
          const reply = this.replySubject(callId);
          this.pending.set(callId, { onMessage, onInboxClosed });
          this.turns.publish(() => this.nc.publish(subject, payload, { reply, headers: h }), noSend);
        } catch (error) {
          noSend(error);
          return;
        }
        arm(this.acceptTimeoutMs, () => {
          // A server that accepts late must not work for nobody: tell it, then ask another.
          this.publishCancel(subject, callId);
          if (cancelled) cancelled_();
          else askAnother('late');
        });
      };
      const askAnother = (reason: NotTakenReason): void => {
        notTaken[reason] += 1;
        this.onNotTaken(reason);
        ask();
      };
      const onAbort = (): void => {
        if (cancelled) return;
        cancelled = true;
        this.publishCancel(subject, callId);
        // The server may have accepted already (its answer still on the way): wait for that answer,
        // so that the caller's slot is held until the work really ends.
        if (phase === 'asking') arm(this.acceptTimeoutMs, cancelled_);
      };
      const lost = (): void =>
        cancelled
          ? cancelled_()
          : fail(MessagingErrorCode.RpcWorkerLost, `the server of ${subject} went silent for ${this.silenceTimeoutMs} ms`);
      const onInboxClosed = (): void => fail(MessagingErrorCode.RpcWorkerLost, `the reply inbox of ${subject} closed`);
      const settle = (reply: StreamedReply): void => {
        if (cancelled) cancelled_();
        else finish(undefined, reply);
      };

      const onMessage = (msg: Msg): void => {
        const kind = replyKind(msg.headers);
        if (kind === 'no_responders') {
          if (phase !== 'asking') return;
          if (cancelled) cancelled_();
          else fail(MessagingErrorCode.RpcNoResponders, `no server serves ${subject}`);
          return;
        }
        // Routed by the subject's call id: answers of an earlier try never reach this call.
        if (!kind) return;
        switch (kind) {
          case 'busy':
            // A short, growing pause lets a slot free before the next member is asked.
            if (phase !== 'asking') return;
            if (cancelled) cancelled_();
            else arm(BUSY_PAUSE_MS * tries + Math.random() * BUSY_PAUSE_MS, () => askAnother('busy'));
            return;
          case 'accepted':
          case 'beat':
            if (phase === 'asking') phase = 'accepted';
            arm(this.silenceTimeoutMs, lost);
            return;
          case 'failed':
            if (cancelled) cancelled_();
            else fail(MessagingErrorCode.RpcRemoteFailure, `the server of ${subject} failed: ${msg.string()}`);
            return;
          case 'whole': {
            const headBytes = Number(msg.headers?.get(HEAD_BYTES_HEADER));
            if (!Number.isInteger(headBytes) || headBytes < 0 || headBytes > msg.data.length) {
              fail(MessagingErrorCode.RpcRemoteFailure, `reply of ${subject} has a bad head length`);
              return;
            }
            // Copies: the message's buffer belongs to the connection's read buffer.
            settle({ head: msg.data.slice(0, headBytes), body: Buffer.from(msg.data.subarray(headBytes)) });
            return;
          }
          case 'head':
            head = msg.data;
            expected = Number(msg.headers?.get(CHUNKS_HEADER) ?? '0');
            chunks = [];
            phase = 'receiving';
            break;
          case 'chunk':
            if (phase !== 'receiving' || Number(msg.headers?.get(SEQ_HEADER)) !== chunks.length) {
              fail(MessagingErrorCode.RpcRemoteFailure, `reply of ${subject} arrived out of order`);
              return;
            }
            chunks.push(Buffer.from(msg.data));
            break;
        }
        arm(this.silenceTimeoutMs, lost);
        if (phase === 'receiving' && chunks.length === expected) settle({ head: head as Uint8Array, body: Buffer.concat(chunks) });
      };

      if (options.signal?.aborted) {
        reject(new MessagingError(MessagingErrorCode.RpcCancelled, `call to ${subject} cancelled before it was sent`));
        return;
      }
      options.signal?.addEventListener('abort', onAbort, { once: true });
      ask();
    });
  }

  /** The reply subject of a call; subscribes the shared inbox on first use (again after it closed). */
  private replySubject(callId: string): string {
    if (!this.inbox) {
      const prefix = createInbox();
      const sub = this.nc.subscribe(`${prefix}.*`, {
        callback: (error, msg) => {
          if (!error) this.pending.get(msg.subject.slice(prefix.length + 1))?.onMessage(msg);
        },
      });
      const inbox = { prefix, sub };
      this.inbox = inbox;
      void sub.closed.then(() => {
        if (this.inbox === inbox) this.inbox = undefined;
        for (const call of [...this.pending.values()]) call.onInboxClosed();
      });
    }
    return `${this.inbox.prefix}.${callId}`;
  }

  private publishCancel(subject: string, callId: string): void {
    this.turns.publish(
      () => this.nc.publish(cancelSubject(subject), callId),
      // Connection closed: the server stops at its own deadline.
      () => undefined,
    );
  }
}
