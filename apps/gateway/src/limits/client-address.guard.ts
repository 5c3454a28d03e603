import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from '@trawl/observability';
import { ClientAddressesRepository, ErrorRatePolicy } from './client-addresses.repository';
import { LimitError, LimitErrorCode } from './limits.errors';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * Set when the answer is the worker's account of the target (the page, or the target's
     * failure): such answers never count as the client's errors.
     */
    answeredFromTarget: boolean;
  }
}

/**
 * `BLK0001` (spec §7): a client address whose answers on the guarded routes were mostly errors
 * is blocked for a while. Counted: every 4xx the gateway itself decided (authentication,
 * parameters, account, limits, verb). Not counted: answers about the target (`answeredFromTarget`)
 * and 5xx (our failures, not the client's). The check runs first in `onRequest` (before
 * authentication, so key guessing is blocked too); the count runs after the answer has left.
 */
export function installClientAddressGuard(
  fastify: FastifyInstance,
  options: {
    addresses: ClientAddressesRepository;
    policy: ErrorRatePolicy;
    logger: Logger;
    isGuardedRoute: (route: string | undefined) => boolean;
  },
): void {
  const blocked = new WeakSet<FastifyRequest>();
  fastify.decorateRequest('answeredFromTarget', false);
  fastify.addHook('onRequest', async (request) => {
    if (!options.isGuardedRoute(request.routeOptions.url)) return;
    const until = await options.addresses.blockedUntil(request.ip);
    if (!until) return;
    blocked.add(request);
    const retryAfter = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 1000));
    throw new LimitError(
      LimitErrorCode.AddressBlocked,
      `Your address is blocked until ${until.toISOString()} for exceeding the maximum error rate; fix the failing requests before retrying.`,
      { 'retry-after': String(retryAfter) },
    );
  });
  fastify.addHook('onResponse', async (request, reply) => {
    if (!options.isGuardedRoute(request.routeOptions.url) || blocked.has(request)) return;
    const isError = !request.answeredFromTarget && reply.statusCode >= 400 && reply.statusCode < 500;
    // After the answer left: its latency does not wait for this write.
    options.addresses
      .record(request.ip, isError, options.policy)
      .catch((error: unknown) => options.logger.warn({ err: error }, 'could not record a client address outcome'));
  });
}
