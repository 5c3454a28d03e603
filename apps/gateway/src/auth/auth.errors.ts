import { ApiError } from '../problems/api-error';

/** Why a request could not be authenticated (codes of the Fetch errors table, spec-extract-fetch §7). */
export enum AuthErrorCode {
  /** No key in `X-API-Key` nor `apikey`. */
  KeyMissing = 'AUTH001',
  /** The key is not 40 hexadecimal characters. */
  KeyMalformed = 'AUTH002',
  /** No such key, or it was revoked. */
  KeyNotFound = 'AUTH003',
  /** The key's validity period has ended. */
  KeyExpired = 'AUTH005',
  /** The admin API's bearer token is missing or wrong. */
  AdminTokenRejected = 'admin_unauthorized',
  /** Too many failed admin authentications from this address in the last minute. */
  AdminThrottled = 'admin_throttled',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    auth: AuthErrorCode;
  }
}

export class AuthError extends ApiError<AuthErrorCode> {
  constructor(code: AuthErrorCode, detail: string, headers: Readonly<Record<string, string>> = {}) {
    super(code, detail, {}, headers);
  }
}
