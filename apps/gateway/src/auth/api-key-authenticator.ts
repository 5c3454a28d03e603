import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from '@trawl/observability';
import { SERVICE_LOGGER } from '@trawl/service-kit';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { assertNotSuspended } from '../tenants/account-standing';
import { hashApiKey, isApiKeyFormat } from './api-key';
import { ApiKeyRecord, ApiKeysRepository } from './api-keys.repository';
import { AuthError, AuthErrorCode } from './auth.errors';
import type { TenantContext } from './authenticated-tenant';
import { TtlLruCache } from './ttl-lru-cache';

/** How stale `api_keys.last_used_at` may be: it is written at most once per key per minute per replica. */
const LAST_USE_PRECISION_MS = 60_000;

/**
 * Turns a presented API key into the tenant it belongs to. Valid keys are remembered for a few
 * seconds (`API_KEY_CACHE_TTL_MS`), so the hot path (Fetch) does not ask Postgres on every request;
 * a revoked or rotated key, or a suspended tenant's, therefore keeps working on a replica for at
 * most that long (and a resumed tenant waits as long). Expiry is checked on every request, cached
 * or not.
 *
 * Each key's `last_used_at` is written at most once a minute per replica, never on every request:
 * it is at most a minute older than the key's latest use.
 */
@Injectable()
export class ApiKeyAuthenticator {
  // Keyed by the key's hash, so the process never holds presented keys in a long-lived structure.
  private readonly validKeys: TtlLruCache<string, ApiKeyRecord>;
  /** Keys whose use this replica noted within the last minute, by key id. */
  private readonly recentlyUsed: TtlLruCache<string, true>;

  constructor(
    private readonly apiKeys: ApiKeysRepository,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
    @Inject(SERVICE_LOGGER) private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.validKeys = new TtlLruCache({ ttlMs: config.API_KEY_CACHE_TTL_MS, maxEntries: config.API_KEY_CACHE_MAX_ENTRIES });
    this.recentlyUsed = new TtlLruCache({ ttlMs: LAST_USE_PRECISION_MS, maxEntries: config.API_KEY_CACHE_MAX_ENTRIES });
  }

  /**
   * @throws AuthError AUTH001 (missing), AUTH002 (malformed), AUTH003 (unknown or revoked), AUTH005 (expired).
   * @throws AccountError AUTH011 when the key's tenant is suspended.
   */
  async authenticate(presented: string | undefined): Promise<TenantContext> {
    if (presented === undefined || presented === '') {
      throw new AuthError(AuthErrorCode.KeyMissing, 'Send your API key in the `X-API-Key` header or the `apikey` query parameter.');
    }
    if (!isApiKeyFormat(presented)) {
      throw new AuthError(AuthErrorCode.KeyMalformed, 'An API key is 40 lowercase hexadecimal characters; check the key you sent.');
    }
    const keyHash = hashApiKey(presented);
    const cacheKey = keyHash.toString('base64');
    const now = new Date();
    const cached = this.validKeys.get(cacheKey);
    const record = cached ?? (await this.apiKeys.findByHash(keyHash));
    if (!record || (record.revokedAt && record.revokedAt <= now)) {
      this.validKeys.delete(cacheKey);
      throw new AuthError(AuthErrorCode.KeyNotFound, 'This API key does not exist or was revoked; use a current key.');
    }
    if (record.expiresAt && record.expiresAt <= now) {
      this.validKeys.delete(cacheKey);
      throw new AuthError(AuthErrorCode.KeyExpired, 'This API key has reached the end of its validity period; use a current key.');
    }
    // Only a record just read from Postgres starts a lifetime: refreshing it on a hit would keep a
    // revoked key working for as long as it is used more often than the TTL.
    // A suspended tenant's key stays cached: its refusals cost no lookup, and resuming it shows within the TTL too.
    if (!cached) this.validKeys.set(cacheKey, record);
    assertNotSuspended({ suspendedAt: record.tenantSuspendedAt });
    this.noteUse(record.keyId);
    return { tenantId: record.tenantId, keyId: record.keyId };
  }

  /** Writes the key's `last_used_at` unless this replica did within the minute; never delays the request. */
  private noteUse(keyId: string): void {
    if (this.recentlyUsed.get(keyId)) return;
    this.recentlyUsed.set(keyId, true);
    void this.apiKeys.recordUse(keyId).catch((error: unknown) => {
      // The next use after the minute tries again.
      this.logger.warn({ err: error, api_key_id: keyId }, 'could not record the last use of an API key');
    });
  }
}
