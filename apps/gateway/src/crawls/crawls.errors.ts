import { ApiError } from '../problems/api-error';

/** Refusals of the Crawl API (spec-crawl-api §7) beyond the generic request problems. */
export enum CrawlErrorCode {
  /** The cursor was issued for another crawl. */
  InvalidCursor = 'invalid_cursor',
  /** No crawl with this id on the caller's account (also for another tenant's id, or a malformed one). */
  CrawlNotFound = 'crawl_not_found',
  /** The page is not fetched, failed, or the crawl has no `output_format`. */
  ContentNotFound = 'content_not_found',
  /** Not a public http/https URL, an IP host, a non-public address, or over 2,048 characters. */
  InvalidStartUrl = 'invalid_start_url',
  /** The account already runs its maximum of active jobs. */
  TooManyCrawls = 'too_many_crawls',
}

declare module '../problems/api-error' {
  interface ApiErrorCodes {
    crawls: CrawlErrorCode;
  }
}

export class CrawlError extends ApiError<CrawlErrorCode> {}
