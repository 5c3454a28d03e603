import { Inject, Injectable } from '@nestjs/common';
import type { GatewayConfig } from '../config';
import { GATEWAY_CONFIG } from '../gateway.tokens';
import { hashApiKey, isApiKeyFormat } from './api-key';
import { ApiKeyRecord, ApiKeysRepository } from './api-keys.repository';
import { AuthError, AuthErrorCode } from './auth.errors';
import type { TenantContext } from './authenticated-tenant';
import { TtlLruCache } from './ttl-lru-cache';

/**
 * Turns a presented API key into the tenant it belongs to. Valid keys are remembered for a few
 * seconds (`API_KEY_CACHE_TTL_MS`), so the hot path (Fetch) does not ask Postgres on every request;
 * a revoked key therefore keeps working on a replica for at most that long. Expiry is checked on
 * every request, cached or not.
 */
@Injectable()
export class ApiKeyAuthenticator {
  // Keyed by the key's hash, so the process never holds presented keys in a long-lived structure.
  private readonly validKeys: TtlLruCache<string, ApiKeyRecord>;

  constructor(
    private readonly apiKeys: ApiKeysRepository,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.validKeys = new TtlLruCache({ ttlMs: config.API_KEY_CACHE_TTL_MS, maxEntries: config.API_KEY_CACHE_MAX_ENTRIES });
  }

  /** @throws AuthError AUTH001 (missing), AUTH002 (malformed), AUTH003 (unknown or revoked), AUTH005 (expired). */
  async authenticate(presented: string | undefined): Promise<TenantContext> {
    if (presented === undefined || presented === '') {
      throw new AuthError(
        AuthErrorCode.KeyMissing,
        'Send your API key in the `X-API-Key` header or the `apikey` query parameter.',
      );
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
    if (!cached) this.validKeys.set(cacheKey, record);
    return { tenantId: record.tenantId, keyId: record.keyId };
  }
}
