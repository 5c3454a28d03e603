import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, UseGuards } from '@nestjs/common';
import { AdminFingerprint, AdminTokenGuard } from '../auth/admin-token.guard';
import { assertNoBody, parseBody } from '../problems/body-validation';
import { assertKnownQueryParameters, intQueryParameter, QueryParameters, singleQueryValue } from '../problems/query-parameters';
import { decodeCreatedCursor, encodeCreatedCursor } from './admin-cursors';
import { presentKey } from './tenant.presenter';
import { TenantKeysService } from './tenant-keys.service';
import { createApiKeyBody } from '@trawl/contracts/http';

const ADMIN_QUERY = { apiKeyParameter: false };

/** Admin API: a tenant's named API keys. A key's secret is answered once, by POST and rotate. */
@Controller('admin/v1/tenants/:tenantId/keys')
@UseGuards(AdminTokenGuard)
export class TenantKeysController {
  constructor(private readonly keys: TenantKeysService) {}

  /** The tenant's keys, revoked ones too, newest first: `{keys, next_cursor}`. */
  @Get()
  async list(@Param('tenantId') tenantId: string, @Query() query: QueryParameters) {
    assertKnownQueryParameters(query, ['cursor', 'limit'], ADMIN_QUERY);
    const limit = intQueryParameter(query, 'limit', { min: 1, max: 100, fallback: 20 });
    const cursor = decodeCreatedCursor('keys', singleQueryValue(query, 'cursor') || undefined);
    const page = await this.keys.list(tenantId, cursor, limit);
    const last = page.keys.at(-1);
    return {
      keys: page.keys.map(presentKey),
      ...(page.more && last && { next_cursor: encodeCreatedCursor('keys', { createdAtMicros: last.createdAtMicros, id: last.keyId }) }),
    };
  }

  @Post()
  @HttpCode(201)
  async issue(
    @Param('tenantId') tenantId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @AdminFingerprint() admin: string,
  ) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    const request = parseBody(createApiKeyBody, body ?? {});
    const { key, apiKey } = await this.keys.issue(tenantId, request, admin);
    return { ...presentKey(key), api_key: apiKey };
  }

  /** A new secret for the key (answered once); the old one is refused within `API_KEY_CACHE_TTL_MS`. */
  @Post(':keyId/rotate')
  @HttpCode(200)
  async rotate(
    @Param('tenantId') tenantId: string,
    @Param('keyId') keyId: string,
    @Body() body: unknown,
    @Query() query: QueryParameters,
    @AdminFingerprint() admin: string,
  ) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    assertNoBody(body);
    const { key, apiKey } = await this.keys.rotate(tenantId, keyId, admin);
    return { ...presentKey(key), api_key: apiKey };
  }

  /** Revokes the key (refused `AUTH003` within `API_KEY_CACHE_TTL_MS`); answers it, `revoked_at` set. */
  @Delete(':keyId')
  async revoke(
    @Param('tenantId') tenantId: string,
    @Param('keyId') keyId: string,
    @Query() query: QueryParameters,
    @AdminFingerprint() admin: string,
  ) {
    assertKnownQueryParameters(query, [], ADMIN_QUERY);
    return presentKey(await this.keys.revoke(tenantId, keyId, admin));
  }
}
