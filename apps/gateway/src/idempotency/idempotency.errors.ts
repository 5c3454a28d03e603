import { ApiError } from '../problems/api-error';

/** Conflicts of an `Idempotency-Key` with an earlier request that used it. */
export enum IdempotencyErrorCode {
  /** The first request with this key has not finished yet. */
  RequestInFlight = 'idempotency_request_in_flight',
  /** The key was used with a different body. */
  KeyReused = 'idempotency_key_reused',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    idempotency: IdempotencyErrorCode;
  }
}

export class IdempotencyError extends ApiError<IdempotencyErrorCode> {}
