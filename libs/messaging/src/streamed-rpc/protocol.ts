import type { MsgHdrs } from '@nats-io/nats-core';

/**
 * Wire format of the streamed request/reply. A request is one core NATS message with a reply
 * inbox; the server answers on that inbox with a sequence of messages told apart by the
 * `Trawl-Rpc-Kind` header:
 *
 *   busy       the server is full (or stopping): the client asks another member of the queue group
 *   accepted   the server took the call; from now on it beats every `heartbeatMs`. Sent at once,
 *              or, when the request carried `Trawl-Rpc-Accept-Within: <ms>`, only if the call
 *              is not answered within that time: an answer (head, whole, failed) implies it, so a
 *              quick call costs one reply message instead of two. A client asks for at most a
 *              quarter of its accept timeout, so that a late accept still arrives in time.
 *   beat       still working (lets the client tell a slow call from a dead server)
 *   head       the reply head (payload), then `Trawl-Rpc-Chunks` chunk messages follow
 *   chunk      a piece of the body, `Trawl-Rpc-Seq` 0…n-1, in order (NATS keeps one publisher's order)
 *   whole      head and body in one message: the payload is the head's `Trawl-Rpc-Head-Bytes`
 *              bytes, then the body. Sent only to a client whose request carried
 *              `Trawl-Rpc-Whole: 1`, so that old clients and new servers (or the reverse) still
 *              understand each other during a rolling upgrade.
 *   failed     the handler threw; the payload is a short message
 *
 * A client receives every reply on one wildcard inbox subscription, `<inbox>.<call id>`: a call
 * costs the server no subscription of its own (no SUB/UNSUB, no churn of its subject index).
 *
 * Cancels travel on `<subject>.cancel` to every server (not the queue group): only the server that
 * holds the call id acts on it.
 */
export const KIND_HEADER = 'Trawl-Rpc-Kind';
export const CALL_HEADER = 'Trawl-Rpc-Call';
export const CHUNKS_HEADER = 'Trawl-Rpc-Chunks';
export const SEQ_HEADER = 'Trawl-Rpc-Seq';
export const WHOLE_HEADER = 'Trawl-Rpc-Whole';
export const HEAD_BYTES_HEADER = 'Trawl-Rpc-Head-Bytes';
export const ACCEPT_WITHIN_HEADER = 'Trawl-Rpc-Accept-Within';

export type ReplyKind = 'busy' | 'accepted' | 'beat' | 'head' | 'chunk' | 'whole' | 'failed';
const KINDS = new Set<string>(['busy', 'accepted', 'beat', 'head', 'chunk', 'whole', 'failed']);

export function cancelSubject(subject: string): string {
  return `${subject}.cancel`;
}

/** Reply kind of an inbox message; `no_responders` for the server's 503 status; undefined otherwise. */
export function replyKind(headers: MsgHdrs | undefined): ReplyKind | 'no_responders' | undefined {
  if (!headers) return undefined;
  if (headers.code === 503) return 'no_responders';
  const kind = headers.get(KIND_HEADER);
  return KINDS.has(kind) ? (kind as ReplyKind) : undefined;
}

/** Our own protocol headers are not the caller's business. */
export function callerHeaders(headers: MsgHdrs | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  if (!headers) return result;
  for (const key of headers.keys()) {
    if (key.toLowerCase().startsWith('trawl-rpc-')) continue;
    result[key.toLowerCase()] = headers.get(key);
  }
  return result;
}
