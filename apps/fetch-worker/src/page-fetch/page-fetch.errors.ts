import { CodedError } from '@trawl/errors';

/** Why a page fetch ended without a verdict on the page. */
export enum PageFetchErrorCode {
  /** The caller aborted (worker shutdown): the page is neither fetched nor failed, and is handed back. */
  Aborted = 'aborted',
  /**
   * Every browser stayed busy (or is closing), or the page's host could not take another load in
   * time (per-host limits, a 429's pause): the page is neither fetched nor failed, and is handed back.
   */
  Busy = 'busy',
}

/** A fetch that says nothing about the page itself; consumers hand the work back instead of reporting it. */
export class PageFetchError extends CodedError<PageFetchErrorCode> {
  constructor(code: PageFetchErrorCode, message: string, options: { cause?: unknown; retryAfterMs?: number } = {}) {
    super(code, message, { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
  }

  /** When to offer the work again, in ms, when the reason says (a host's pause). */
  readonly retryAfterMs?: number;
}
