import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import type { FinalizedSigningKeyAnswer, IssuedSigningKeyAnswer, SigningKeyListAnswer } from '@trawl/contracts/http';
import { AuthenticatedTenant, TenantContext } from '../auth/authenticated-tenant';
import { assertNoBody } from '../problems/body-validation';
import { assertKnownQueryParameters, QueryParameters } from '../problems/query-parameters';
import { SigningKeysService } from './signing-keys.service';

/** Webhook signing keys (spec-batch-api §4 /hmac/keys). */
@Controller('v1/hmac/keys')
export class SigningKeysController {
  constructor(private readonly keys: SigningKeysService) {}

  /** `{kid, secret, created_at, status}`; the secret is never shown again. */
  @Post('rotate')
  @HttpCode(201)
  async rotate(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<IssuedSigningKeyAnswer> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    const key = await this.keys.rotate(tenant.tenantId);
    return { kid: key.kid, secret: key.secret, created_at: key.createdAt.toISOString(), status: key.status };
  }

  /** Promotes the candidate: `{active_kid, created_at}` of the key now signing. */
  @Post('rotate/finalize')
  @HttpCode(200)
  async finalize(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<FinalizedSigningKeyAnswer> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    const active = await this.keys.finalize(tenant.tenantId);
    return { active_kid: active.kid, created_at: active.createdAt.toISOString() };
  }

  /** `204`: the staged candidate is retired and the active key signs on; `409` when none is staged. */
  @Delete('rotate')
  @HttpCode(204)
  async cancelRotation(
    @AuthenticatedTenant() tenant: TenantContext,
    @Body() body: unknown,
    @Query() query: QueryParameters,
  ): Promise<void> {
    assertKnownQueryParameters(query, []);
    assertNoBody(body);
    await this.keys.cancelRotation(tenant.tenantId);
  }

  /** `{active_kid, candidate_kid, keys: [{kid, status, created_at}]}`, newest first, never a secret. */
  @Get()
  async list(@AuthenticatedTenant() tenant: TenantContext, @Query() query: QueryParameters): Promise<SigningKeyListAnswer> {
    assertKnownQueryParameters(query, []);
    const keys = await this.keys.list(tenant.tenantId);
    const active = keys.find((key) => key.status === 'active');
    const candidate = keys.find((key) => key.status === 'candidate');
    return {
      active_kid: active?.kid ?? null,
      candidate_kid: candidate?.kid ?? null,
      keys: keys.map((key) => ({ kid: key.kid, status: key.status, created_at: key.createdAt.toISOString() })),
      ...(active && { active: { kid: active.kid, created_at: active.createdAt.toISOString() } }),
      ...(candidate && { candidate: { kid: candidate.kid, created_at: candidate.createdAt.toISOString() } }),
    };
  }
}
