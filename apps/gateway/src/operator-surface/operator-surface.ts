import { NotFoundException } from '@nestjs/common';
import { addInternalListener, cameThroughInternalListener, type InternalListener } from '@trawl/http';
import type { FastifyInstance } from 'fastify';

/** Paths of the operator surface: the admin API, and `/metrics` (whose series name tenants). */
export function isOperatorPath(path: string): boolean {
  return path === '/metrics' || path === '/admin' || path.startsWith('/admin/');
}

/** Probes answer on both ports: a kubelet may probe either. */
const BOTH_PORTS: readonly string[] = ['/healthz', '/readyz'];

/**
 * Serves the operator surface on its own port (`ADMIN_PORT`) and nowhere else: the public port
 * answers its paths 404, exactly as any unknown path, and the admin port answers the public API
 * 404. An Ingress or LoadBalancer in front of the API port therefore never exposes them, whatever
 * its rules. Call before `listen`/`init`.
 */
export function installOperatorSurface(fastify: FastifyInstance, listen: { host: string; port: number }): InternalListener {
  const listener = addInternalListener(fastify, listen);
  fastify.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0];
    if (BOTH_PORTS.includes(path)) return;
    // Thrown as Nest's own 404, so the answer is the one an unknown path gets, word for word.
    if (isOperatorPath(path) !== cameThroughInternalListener(request.raw)) throw new NotFoundException();
  });
  return listener;
}
