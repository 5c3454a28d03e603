import { CanActivate, ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { AuthError, AuthErrorCode } from './auth.errors';

/** Admin routes need `Authorization: Bearer $ADMIN_TOKEN`. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  private readonly expectedDigest: Buffer;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.expectedDigest = digest(config.ADMIN_TOKEN.reveal());
  }

  canActivate(context: ExecutionContext): boolean {
    const header = context.switchToHttp().getRequest<FastifyRequest>().headers.authorization ?? '';
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    // Comparing fixed-length digests keeps the comparison constant-time whatever the token's length.
    if (!match?.[1] || !timingSafeEqual(digest(match[1]), this.expectedDigest)) {
      throw new AuthError(AuthErrorCode.AdminTokenRejected, 'Send the admin token as `Authorization: Bearer <token>`.');
    }
    return true;
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
