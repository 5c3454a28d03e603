import { CanActivate, createParamDecorator, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { AuthError, AuthErrorCode } from './auth.errors';

/** A request the guard let through, marked with which admin token it carried. */
type AdminRequest = FastifyRequest & { adminFingerprint?: string };

/**
 * Admin routes need `Authorization: Bearer $ADMIN_TOKEN`. The guard marks the request with the
 * token's fingerprint ({@link adminTokenFingerprint}), which the admin audit records.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expectedDigest: Buffer;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.expectedDigest = digest(config.ADMIN_TOKEN.reveal());
  }

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const header = request.headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    // Comparing fixed-length digests keeps the comparison constant-time whatever the token's length.
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), this.expectedDigest)) {
      throw new AuthError(AuthErrorCode.AdminTokenRejected, 'Send the admin token as `Authorization: Bearer <token>`.');
    }
    request.adminFingerprint = fingerprintOf(this.expectedDigest);
    return true;
  }
}

/**
 * Which admin token made a change, as the audit shows it: the first 8 hex characters of the
 * token's SHA-256. It tells tokens apart across a rotation of `ADMIN_TOKEN` and reveals nothing usable.
 */
export function adminTokenFingerprint(token: string): string {
  return fingerprintOf(digest(token));
}

/** Handler parameter of an admin route: the fingerprint of the admin token that called it. */
export const AdminFingerprint = createParamDecorator((_data: unknown, ctx: ExecutionContext): string => {
  const fingerprint = ctx.switchToHttp().getRequest<AdminRequest>().adminFingerprint;
  // Only reachable by a route without AdminTokenGuard using this decorator: a programming error.
  if (!fingerprint) throw new Error('AdminFingerprint used on a route AdminTokenGuard does not guard');
  return fingerprint;
});

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

function fingerprintOf(tokenDigest: Buffer): string {
  return tokenDigest.toString('hex').slice(0, 8);
}
