import { ApiError } from '../problems/api-error';

/** Refusals of the tenants admin API. */
export enum TenantErrorCode {
  TenantNotFound = 'tenant_not_found',
  /** A CAPTCHA solver key is set but `SECRETS_KEY` is not configured, so it cannot be sealed. */
  SecretsUnavailable = 'secrets_unavailable',
  /** No key of this tenant has this id (a key of another tenant included). */
  ApiKeyNotFound = 'api_key_not_found',
  /** The key is revoked: it cannot be rotated. */
  ApiKeyRevoked = 'api_key_revoked',
  /** A live key of the tenant already has this name. */
  ApiKeyNameTaken = 'api_key_name_taken',
  /** A `cursor` of an admin list that is not one this list gave (wire code `invalid_cursor`). */
  InvalidAdminCursor = 'admin_invalid_cursor',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    tenants: TenantErrorCode;
  }
}

export class TenantError extends ApiError<TenantErrorCode> {}
