import type { IncomingMessage } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/** Marks a socket accepted by an internal listener. */
const INTERNAL = Symbol('trawl.internalListener');

export interface InternalListener {
  /** The port it listens on (the one asked for, or the one the OS picked for 0); set once the app is ready. */
  readonly port: number;
}

const listeners = new WeakMap<FastifyInstance, InternalListener>();

/**
 * A second port for the same Fastify app, for what an operator reaches and a tenant must not
 * (the admin API, `/metrics`): its connections are handed to the app's own HTTP server, so routes,
 * hooks, keep-alive and the drain at close are the app's, and `cameThroughInternalListener` tells a
 * request's listener apart. It starts when the app is ready (a port in use fails the start) and
 * stops taking connections when the app starts closing. Call before `listen`/`init`.
 */
export function addInternalListener(fastify: FastifyInstance, options: { host: string; port: number }): InternalListener {
  let server: Server | undefined;
  const listener = {
    get port(): number {
      const address = server?.address() as AddressInfo | null | undefined;
      if (!address) throw new Error('the internal listener is not listening (the app is not ready)');
      return address.port;
    },
  };
  fastify.addHook('onReady', async () => {
    const accepting = createServer((socket: Socket) => {
      (socket as Socket & { [INTERNAL]?: true })[INTERNAL] = true;
      fastify.server.emit('connection', socket);
    });
    await new Promise<void>((resolve, reject) => {
      accepting.once('error', reject);
      accepting.listen(options.port, options.host, () => {
        accepting.off('error', reject);
        resolve();
      });
    });
    server = accepting;
  });
  fastify.addHook('preClose', async () => {
    // Stops accepting, without waiting: `close`'s callback would wait for the connections it
    // accepted, which are the app's server's now, drained and ended by its own close after this hook.
    server?.close();
  });
  listeners.set(fastify, listener);
  return listener;
}

/** The internal listener added to this app, if any. */
export function internalListenerOf(fastify: FastifyInstance): InternalListener | undefined {
  return listeners.get(fastify);
}

/** True when the request came in on an internal listener rather than the app's public port. */
export function cameThroughInternalListener(request: IncomingMessage): boolean {
  return (request.socket as Socket & { [INTERNAL]?: true })[INTERNAL] === true;
}
