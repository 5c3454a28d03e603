import type { FastifyInstance } from 'fastify';

/** Routes that take task lists (100,000 tasks in one submission, 10,000 per add). */
const TASK_LIST_ROUTES = new Set(['POST /v1/jobs', 'POST /v1/jobs/:jobId/tasks']);

/**
 * Raises the body limit of the routes that take task lists, leaving every other route at the
 * server's limit. Install before the app initialises its routes.
 */
export function raiseTaskListBodyLimit(fastify: FastifyInstance, bytes: number): void {
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.some((method) => TASK_LIST_ROUTES.has(`${method} ${route.url}`))) route.bodyLimit = bytes;
  });
}
