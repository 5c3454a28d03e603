import type { ApiError } from '../problems/api-error';
import { RequestErrorCode } from '../problems/request.errors';
import { FetchError, FetchErrorCode } from './fetch.errors';
import { retryAdvice } from './worker-failure';

/**
 * The Fetch endpoint speaks only the codes of spec-extract-fetch §7, which client SDKs switch on:
 * an unexpected failure is `ERR0000` with a `Retry-After` of 10–30 s (not the REST API's
 * `internal_error`), and a body the gateway could not take is `REQS004` naming `body`.
 */
export function asFetchProblem(error: ApiError): ApiError {
  switch (error.code) {
    case RequestErrorCode.Internal:
      return new FetchError(FetchErrorCode.Internal, error.detail, {}, retryAdvice(FetchErrorCode.Internal));
    case RequestErrorCode.PayloadTooLarge:
    case RequestErrorCode.UnsupportedMediaType:
    case RequestErrorCode.InvalidRequest:
      return new FetchError(FetchErrorCode.InvalidParameters, error.detail, { parameter: 'body' });
    default:
      return error;
  }
}
