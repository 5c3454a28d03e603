import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';

/**
 * `X-Request-Id` of a Fetch answer: set on the reply when the request arrives (so that refusals
 * before the controller carry it too), read back by the controller. Ours, never the caller's.
 */
export function assignRequestId(reply: FastifyReply): string {
  const id = randomUUID();
  void reply.header('x-request-id', id);
  return id;
}

export function requestIdOf(reply: FastifyReply): string {
  const id = reply.getHeader('x-request-id');
  return typeof id === 'string' ? id : assignRequestId(reply);
}
