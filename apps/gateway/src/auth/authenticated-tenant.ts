import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';

/** Who is calling: the tenant an API key belongs to. */
export interface TenantContext {
  tenantId: string;
  keyId: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the API key hook on every `/v1` route before the body is read; `null` elsewhere. */
    tenant: TenantContext | null;
  }
}

/** Handler parameter: the authenticated tenant of a `/v1` route. */
export const AuthenticatedTenant = createParamDecorator((_data: unknown, ctx: ExecutionContext): TenantContext => {
  const tenant = ctx.switchToHttp().getRequest<FastifyRequest>().tenant;
  // Only reachable by a route outside /v1 using this decorator: a programming error, hence a 500.
  if (!tenant) throw new Error('AuthenticatedTenant used on a route the API key hook does not cover');
  return tenant;
});
