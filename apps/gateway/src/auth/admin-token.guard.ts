import { CanActivate, createParamDecorator, ExecutionContext, Injectable } from '@nestjs/common';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AdminAuthenticator } from './admin-authenticator';
import { AuthError, AuthErrorCode } from './auth.errors';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the admin hook on every `/admin` route before the body is read; `null` elsewhere. */
    adminFingerprint: string | null;
  }
}

/** Every route under this prefix is the admin API. */
const ADMIN_PREFIX = '/admin/';

/**
 * Authenticates every `/admin` route in Fastify's `onRequest` phase, like the API key hook does
 * `/v1`: before the body is read, so no admin route can forget the check and a refused caller
 * never gets its body parsed.
 */
export function installAdminAuthentication(fastify: FastifyInstance, authenticator: AdminAuthenticator): void {
  fastify.decorateRequest('adminFingerprint', null);
  fastify.addHook('onRequest', async (request) => {
    if (!request.routeOptions.url?.startsWith(ADMIN_PREFIX)) return;
    request.adminFingerprint = await authenticator.authenticate({
      authorization: request.headers.authorization,
      clientAddress: request.ip,
      method: request.method,
      path: request.url.split('?')[0],
    });
  });
}

/**
 * Admin controllers say they are admin routes with this guard: it lets through only requests the
 * admin hook authenticated (a route outside `/admin/` carrying it is refused, never let through).
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    if (!context.switchToHttp().getRequest<FastifyRequest>().adminFingerprint) {
      throw new AuthError(AuthErrorCode.AdminTokenRejected, 'Send the admin token as `Authorization: Bearer <token>`.');
    }
    return true;
  }
}

/** Handler parameter of an admin route: the fingerprint of the admin token that called it. */
export const AdminFingerprint = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  const fingerprint = ctx.switchToHttp().getRequest<FastifyRequest>().adminFingerprint;
  // Only reachable by a route without AdminTokenGuard using this decorator: a programming error.
  if (!fingerprint) throw new Error('AdminFingerprint used on a route AdminTokenGuard does not guard');
  return fingerprint;
});
