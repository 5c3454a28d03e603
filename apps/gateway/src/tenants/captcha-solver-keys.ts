import { Inject, Injectable } from '@nestjs/common';
import { openCaptchaSolverKey, sealCaptchaSolverKey, SecretBox } from '@trawl/webhooks';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import type { Account } from './account';
import { TenantError, TenantErrorCode } from './tenants.errors';

/**
 * Seals tenants' CAPTCHA solver keys at rest with `SECRETS_KEY` (as webhook signing secrets) and
 * opens them for a worker request. The key itself is never logged.
 */
@Injectable()
export class CaptchaSolverKeys {
  private readonly box: SecretBox | undefined;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Logger,
  ) {
    this.box = config.SECRETS_KEY;
  }

  /** @throws TenantError `secrets_unavailable` when `SECRETS_KEY` is not configured. */
  seal(tenantId: string, key: string): Buffer {
    if (!this.box) {
      throw new TenantError(
        TenantErrorCode.SecretsUnavailable,
        'CAPTCHA solver keys cannot be stored: SECRETS_KEY is not configured on this installation.',
      );
    }
    return sealCaptchaSolverKey(this.box, tenantId, key);
  }

  /**
   * The account's solver with its key opened, or `null` without one. A key that cannot be opened
   * (SECRETS_KEY removed or changed) leaves the request without a solver, logged for the operator.
   */
  open(account: Pick<Account, 'tenantId' | 'captchaSolver'>): { endpoint: string; key: string } | null {
    const solver = account.captchaSolver;
    if (!solver) return null;
    const key = openCaptchaSolverKey(this.box, account.tenantId, solver.key);
    if (key === undefined) {
      this.logger.error(
        { tenant_id: account.tenantId },
        'CAPTCHA solver key cannot be opened with this SECRETS_KEY: fetching without a solver',
      );
      return null;
    }
    return { endpoint: solver.endpoint, key };
  }
}
