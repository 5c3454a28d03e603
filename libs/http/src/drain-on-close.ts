import type { FastifyInstance } from 'fastify';

/**
 * Lets a closing server finish: answers sent once `close()` has begun carry `Connection: close`.
 * Fastify closes the connections idle when closing starts, but a keep-alive connection whose
 * request was still under way then stays open after its answer, until the client's keep-alive
 * ends (72 s by default), and the server's close, with every shutdown hook after it (charges and
 * slot releases written, pools closed), waits for it or is cut off by the shutdown deadline.
 */
export function closeConnectionsWhenClosing(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', async () => {
    closing = true;
  });
  fastify.addHook('onSend', async (request, reply) => {
    if (closing && request.raw.httpVersionMajor === 1) reply.header('connection', 'close');
  });
}
