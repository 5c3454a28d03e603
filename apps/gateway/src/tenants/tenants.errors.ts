import { ApiError } from '../problems/api-error';

/** Refusals of the tenants admin API. */
export enum TenantErrorCode {
  TenantNotFound = 'tenant_not_found',
}

export class TenantError extends ApiError {
  constructor(override readonly code: TenantErrorCode, detail: string) {
    super(code, detail);
  }
}
