import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ClientAddressHealth, isClientError } from './client-address-health';
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
 * is blocked for a while. Counted as errors: the 4xx the gateway itself decided (authentication,
 * parameters, account, verb), not 429s (`AUTH006`, `AUTH008`), not answers about the target
 * (`answeredFromTarget`), not 5xx (our failures, not the client's); see {@link isClientError}.
 * The check runs first in `onRequest` (before authentication, so key guessing is blocked too);
 * the count runs after the answer has left.
 */
export function installClientAddressGuard(
  fastify: FastifyInstance,
  options: {
    health: ClientAddressHealth;
    isGuardedRoute: (route: string | undefined) => boolean;
  },
): void {
  const blocked = new WeakSet<FastifyRequest>();
  fastify.decorateRequest('answeredFromTarget', false);
  fastify.addHook('onRequest', async (request) => {
    if (!options.isGuardedRoute(request.routeOptions.url)) return;
    const until = await options.health.blockedUntil(request.ip);
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
    options.health.record(request.ip, isClientError(reply.statusCode, request.answeredFromTarget));
  });
}
