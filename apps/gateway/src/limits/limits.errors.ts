import { ApiError } from '../problems/api-error';

/** Refusals by the limits every gateway replica enforces together (spec-extract-fetch §7). */
export enum LimitErrorCode {
  /** Every concurrency slot of the tenant is held. */
  ConcurrencyFull = 'AUTH006',
  /** The tenant's requests of this minute are spent. */
  RateLimited = 'AUTH008',
  /** The client address answered too many errors lately and is blocked for a while. */
  AddressBlocked = 'BLK0001',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    limits: LimitErrorCode;
  }
}

export class LimitError extends ApiError<LimitErrorCode> {
  constructor(code: LimitErrorCode, detail: string, headers: Record<string, string> = {}) {
    super(code, detail, {}, headers);
  }
}
