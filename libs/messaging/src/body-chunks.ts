import type { NatsConnection } from '@nats-io/nats-core';

/**
 * Most bytes of a page body in one NATS message, wherever a body travels in pieces: the chunks of
 * a spilled body (`SpilledBodies`) and of a streamed reply (`StreamedRpcServer`). 512 KiB stays
 * well under NATS's default `max_payload` (1 MiB) with the headers beside it.
 */
export const BODY_CHUNK_BYTES = 512 * 1024;

/** Room kept in a message for its headers (msg id, trace context, protocol headers), in bytes. */
const HEADER_ROOM_BYTES = 8 * 1024;

/** The server's `max_payload` on this connection, in bytes (NATS's default 1 MiB before it said). */
export function maxPayloadBytes(nc: NatsConnection): number {
  return nc.info?.max_payload ?? 1024 * 1024;
}

/** The most one message can carry beside its headers on this connection, in bytes. */
export function messageRoomBytes(nc: NatsConnection): number {
  return maxPayloadBytes(nc) - HEADER_ROOM_BYTES;
}

/**
 * The chunk size to use on this connection, in bytes: `BODY_CHUNK_BYTES`, or less when the server
 * was configured with a smaller `max_payload` (less the headers' room, at least 1 KiB).
 */
export function bodyChunkBytes(nc: NatsConnection): number {
  return Math.max(1024, Math.min(BODY_CHUNK_BYTES, messageRoomBytes(nc)));
}
