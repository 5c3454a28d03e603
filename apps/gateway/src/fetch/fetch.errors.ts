import { ApiError } from '../problems/api-error';

/** Refusals and failures of the Fetch endpoint decided by the gateway (spec-extract-fetch §7). */
export enum FetchErrorCode {
  /** The operator forbids requests to this domain (`FETCH_FORBIDDEN_DOMAINS`). */
  ForbiddenDomain = 'REQS001',
  /** A parameter, a combination of parameters, or the URL is not valid; the detail names it. */
  InvalidParameters = 'REQS004',
  /** Only GET, POST and PUT fetch a page. */
  MethodNotAllowed = 'REQS005',
  /** `extract=auto` on a domain whose pages show their data only once rendered, without `js_render`. */
  ExtractNeedsRender = 'REQS002',
  /** `extract=auto` for a domain that Extract does not serve (never prepared, or not ready yet). */
  ExtractNotPrepared = 'REQS007',
  /** `css_extractor` is not a JSON object of names to selectors. */
  InvalidCssExtractor = 'RESP004',
  /** No worker could take the request now; retry with backoff (`Retry-After`). */
  NoCapacity = 'RESP009',
  /** The worker stopped answering mid-request, or failed; retryable. */
  WorkerLost = 'ERR0001',
  /** Anything unexpected in the gateway itself (a bug, Postgres down); retry after 10–30 s. */
  Internal = 'ERR0000',
  /** The caller closed the connection; the worker was told to stop. */
  Cancelled = 'CTX0001',
  /** No answer by the request's deadline. */
  DeadlineExceeded = 'CTX0002',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    fetch: FetchErrorCode;
  }
}

export class FetchError extends ApiError<FetchErrorCode> {}
