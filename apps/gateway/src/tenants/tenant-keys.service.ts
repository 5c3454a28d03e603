import { Injectable } from '@nestjs/common';
import { apiKeyHint, generateApiKey, hashApiKey } from '../auth/api-key';
import { isUuid } from '@trawl/http';
import { CreatedCursor } from './admin-cursors';
import { KeyChangeRefusal, TenantKeyRecord, TenantKeysRepository } from './tenant-keys.repository';
import { TenantError, TenantErrorCode } from './tenants.errors';
import type { CreateApiKeyBody } from '@trawl/contracts/http';
import { tenantNotFound } from './tenants.service';

/** A key with its secret: answered once, when issued or rotated, and stored only as a hash. */
export interface IssuedKey {
  key: TenantKeyRecord;
  apiKey: string;
}

/**
 * A tenant's API keys as the operator manages them: several named keys, each rotated or revoked
 * on its own. Changes reach every gateway replica within `API_KEY_CACHE_TTL_MS` (the key cache).
 */
@Injectable()
export class TenantKeysService {
  constructor(private readonly keys: TenantKeysRepository) {}

  /** @throws TenantError `tenant_not_found` (the tenant has no key then either: every tenant has had one). */
  async list(tenantId: string, cursor: CreatedCursor | undefined, limit: number): Promise<{ keys: TenantKeyRecord[]; more: boolean }> {
    const rows = isUuid(tenantId) ? await this.keys.listPage(tenantId, cursor, limit + 1) : [];
    // Every tenant is created with a key and keys are never deleted: no keys means no tenant.
    if (rows.length === 0 && cursor === undefined) tenantNotFound();
    return { keys: rows.slice(0, limit), more: rows.length > limit };
  }

  /** @throws TenantError `tenant_not_found`, `api_key_name_taken`. */
  async issue(tenantId: string, request: CreateApiKeyBody, adminFingerprint: string): Promise<IssuedKey> {
    if (!isUuid(tenantId)) tenantNotFound();
    const apiKey = generateApiKey();
    const issued = await this.keys.insert(
      tenantId,
      { name: request.name, hash: hashApiKey(apiKey), hint: apiKeyHint(apiKey), expiresAt: request.expires_at ?? null },
      { action: 'api_key.created', adminFingerprint, details: { name: request.name } },
    );
    return { key: keyOrRefuse(issued, request.name), apiKey };
  }

  /**
   * A new secret for the key; the old one is refused at once (within the key cache's TTL): a key is
   * rotated because it may have leaked. For an overlap, issue a second key and revoke the first.
   * @throws TenantError `tenant_not_found`, `api_key_not_found`, `api_key_revoked`.
   */
  async rotate(tenantId: string, keyId: string, adminFingerprint: string): Promise<IssuedKey> {
    if (!isUuid(tenantId)) tenantNotFound();
    if (!isUuid(keyId)) keyNotFound();
    const apiKey = generateApiKey();
    const rotated = await this.keys.rotate(
      tenantId,
      keyId,
      { hash: hashApiKey(apiKey), hint: apiKeyHint(apiKey) },
      {
        action: 'api_key.rotated',
        tenantId,
        apiKeyId: keyId,
        adminFingerprint,
      },
    );
    return { key: keyOrRefuse(rotated), apiKey };
  }

  /** Revokes the key; revoking a revoked key answers it as it is. @throws TenantError `tenant_not_found`, `api_key_not_found`. */
  async revoke(tenantId: string, keyId: string, adminFingerprint: string): Promise<TenantKeyRecord> {
    if (!isUuid(tenantId)) tenantNotFound();
    if (!isUuid(keyId)) keyNotFound();
    const revoked = await this.keys.revoke(tenantId, keyId, { action: 'api_key.revoked', tenantId, apiKeyId: keyId, adminFingerprint });
    return typeof revoked === 'string' ? keyOrRefuse(revoked) : revoked.key;
  }
}

function keyOrRefuse(result: TenantKeyRecord | KeyChangeRefusal, name?: string): TenantKeyRecord {
  if (typeof result !== 'string') return result;
  switch (result) {
    case 'tenant_not_found':
      return tenantNotFound();
    case 'key_not_found':
      return keyNotFound();
    case 'key_revoked':
      throw new TenantError(TenantErrorCode.ApiKeyRevoked, 'This API key is revoked and cannot be rotated; issue a new key instead.');
    case 'name_taken':
      throw new TenantError(
        TenantErrorCode.ApiKeyNameTaken,
        `\`name\`: the tenant already has a live key named ${JSON.stringify(name)}; choose another name or revoke that key first.`,
        { parameter: 'name' },
      );
  }
}

function keyNotFound(): never {
  throw new TenantError(TenantErrorCode.ApiKeyNotFound, 'This tenant has no API key with this ID; check the `key_id`.');
}
