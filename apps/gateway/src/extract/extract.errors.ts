import { ApiError } from '../problems/api-error';

/** Refusals of the Extract endpoints (spec-extract-fetch §4; their codes are ours, the spec shows none). */
export enum ExtractErrorCode {
  /** Not a host name Extract can prepare: an IP address, a bare public suffix, not a name at all. */
  InvalidDomain = 'invalid_domain',
  /** An example URL that is not an http(s) URL of the domain asked for. */
  InvalidExampleUrl = 'invalid_example_url',
  /** No preparation was ever asked for this domain. */
  PreparedDomainNotFound = 'prepared_domain_not_found',
  /** The account asked for as many new domains as its plan allows in this billing period. */
  DomainQuotaExceeded = 'extract_domain_quota_exceeded',
  /** A `cursor` of `GET /v1/extract/domains` that is not one it gave (wire code `invalid_cursor`). */
  InvalidCursor = 'extract_invalid_cursor',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    extract: ExtractErrorCode;
  }
}

export class ExtractError extends ApiError<ExtractErrorCode> {}
