import { ApiError } from '../problems/api-error';

/** Refusals of the tenants admin API. */
export enum TenantErrorCode {
  TenantNotFound = 'tenant_not_found',
  /** A CAPTCHA solver key is set but `SECRETS_KEY` is not configured, so it cannot be sealed. */
  SecretsUnavailable = 'secrets_unavailable',
}

export class TenantError extends ApiError {
  constructor(override readonly code: TenantErrorCode, detail: string) {
    super(code, detail);
  }
}
