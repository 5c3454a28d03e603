import { CodedError } from '@trawl/errors';

/** Why a page fetch ended without a verdict on the page. */
export enum PageFetchErrorCode {
  /** The caller aborted (worker shutdown): the page is neither fetched nor failed, and is handed back. */
  Aborted = 'aborted',
  /** Every browser stayed busy (or is closing): the page is neither fetched nor failed, and is handed back. */
  Busy = 'busy',
}

/** A fetch that says nothing about the page itself; consumers hand the work back instead of reporting it. */
export class PageFetchError extends CodedError<PageFetchErrorCode> {}
