import { Inject, Injectable } from '@nestjs/common';
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import { Counter, Registry } from 'prom-client';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { AdminAuditRepository, AdminAuthRefusal } from '../tenants/admin-audit.repository';
import { AdminAuthThrottle } from './admin-auth-throttle';
import { AuthError, AuthErrorCode } from './auth.errors';

/** What authentication reads of an admin request. */
export interface AdminRequestFacts {
  authorization: string | undefined;
  /** The client's address (`X-Forwarded-For` only from `TRUSTED_PROXIES`). */
  clientAddress: string;
  method: string;
  /** Path without the query string. */
  path: string;
}

/**
 * Checks `Authorization: Bearer $ADMIN_TOKEN` and answers the token's fingerprint (what the audit
 * records of a change). A missing or wrong token is counted, logged and audited; an address that
 * failed `ADMIN_AUTH_FAILURES_PER_MINUTE` times in a minute is refused with 429 until the minute
 * has passed, whatever it sends, and only the refusal that starts it is audited, so a scanner
 * cannot fill the audit.
 */
@Injectable()
export class AdminAuthenticator {
  private readonly expectedDigest: Buffer;
  private readonly throttle: AdminAuthThrottle;
  private readonly refusals: Counter<'reason'>;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    private readonly audit: AdminAuditRepository,
    registry: Registry,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.expectedDigest = digest(config.ADMIN_TOKEN.reveal());
    this.throttle = new AdminAuthThrottle(config.ADMIN_AUTH_FAILURES_PER_MINUTE);
    this.refusals = new Counter({
      name: 'trawl_gateway_admin_auth_refusals_total',
      help: 'Admin API requests refused before their route: missing or wrong token, or the address refused for too many failures (throttled).',
      labelNames: ['reason'] as const,
      registers: [registry],
    });
  }

  async authenticate(request: AdminRequestFacts): Promise<string> {
    const retryAfterMs = this.throttle.retryAfterMs(request.clientAddress);
    if (retryAfterMs > 0) {
      this.refusals.inc({ reason: 'throttled' });
      throw new AuthError(AuthErrorCode.AdminThrottled, 'Too many failed admin authentications from this address; try again later.', {
        'retry-after': String(Math.ceil(retryAfterMs / 1000)),
      });
    }
    const token = /^Bearer\s+(\S+)\s*$/i.exec(request.authorization ?? '')?.[1];
    const presented = token === undefined ? undefined : digest(token);
    // Comparing fixed-length digests keeps the comparison constant-time whatever the token's length.
    if (presented && timingSafeEqual(presented, this.expectedDigest)) return fingerprintOf(presented);

    const reason = presented ? 'wrong_token' : 'missing';
    this.refusals.inc({ reason });
    const reachedLimit = this.throttle.failed(request.clientAddress);
    const refusal: AdminAuthRefusal = {
      action: 'admin.auth_failed',
      adminFingerprint: presented ? fingerprintOf(presented) : '',
      details: { client_address: request.clientAddress, method: request.method, path: request.path, reason },
    };
    this.logger.warn({ ...refusal.details, admin_fingerprint: refusal.adminFingerprint }, 'admin authentication failed');
    await this.record(refusal);
    if (reachedLimit) {
      this.logger.warn(
        { client_address: request.clientAddress },
        'admin authentication failures reached the limit; address refused for a minute',
      );
      await this.record({ ...refusal, action: 'admin.auth_throttled', details: { ...refusal.details, reason: 'throttled' } });
    }
    throw new AuthError(AuthErrorCode.AdminTokenRejected, 'Send the admin token as `Authorization: Bearer <token>`.');
  }

  /** The refusal stands whether or not the audit could be written; a failed write is logged. */
  private async record(refusal: AdminAuthRefusal): Promise<void> {
    await this.audit
      .recordRefusal(refusal)
      .catch((error: unknown) => this.logger.error({ err: error, action: refusal.action }, 'could not audit an admin refusal'));
  }
}

function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Which admin token made a change, as the audit shows it: the first 8 hex characters of the
 * token's SHA-256. It tells tokens apart across a rotation of `ADMIN_TOKEN` and reveals nothing usable.
 */
function fingerprintOf(tokenDigest: Buffer): string {
  return tokenDigest.toString('hex').slice(0, 8);
}
