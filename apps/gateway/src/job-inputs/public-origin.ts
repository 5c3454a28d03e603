import type { FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config';

/**
 * Where callers reach the API, for URLs the API hands out: `PUBLIC_BASE_URL`, else the request's
 * own protocol and `Host` (forwarded ones only from `TRUSTED_PROXIES`, as Fastify reads them).
 */
export function publicOrigin(config: Pick<GatewayConfig, 'PUBLIC_BASE_URL'>, request: Pick<FastifyRequest, 'protocol' | 'host'>): string {
  return config.PUBLIC_BASE_URL ?? `${request.protocol}://${request.host}`;
}
