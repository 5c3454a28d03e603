import type { FastifyInstance } from 'fastify';
import { Histogram, Registry } from 'prom-client';

/**
 * `http_request_duration_seconds{route, method, status_code}`: one observation per response,
 * labelled by the route pattern (`/v1/crawls/:crawlId`), never the raw URL, so the label set stays
 * small and no API key in a query string reaches Prometheus.
 */
export function installHttpMetrics(fastify: FastifyInstance, registry: Registry): void {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request received to response sent, by route, method and status code.',
    labelNames: ['route', 'method', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 180],
    registers: [registry],
  });
  fastify.addHook('onResponse', async (request, reply) => {
    duration.observe(
      { route: request.routeOptions.url ?? 'unmatched', method: request.method, status_code: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}
