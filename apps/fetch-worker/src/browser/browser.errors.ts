import { CodedError } from '@trawl/errors';

/** Why the browser engine could not render a page. The worker maps each code to a Fetch error code. */
export enum BrowserErrorCode {
  /** No page slot freed before the request's deadline, or the wait queue is full (→ `RESP009`). */
  PoolBusy = 'pool_busy',
  /** The pool is closing or closed (worker shutdown: hand the work back). */
  PoolClosed = 'pool_closed',
  /** Chromium could not be started. */
  LaunchFailed = 'launch_failed',
  /** A browser call did not answer within its time limit (the browser is wedged). */
  CallTimeout = 'call_timeout',
  /** Chromium died or disconnected while the page was rendering (→ retryable `ERR0001`). */
  BrowserCrashed = 'browser_crashed',
  /** The request's `deadline_at` passed before the page was taken (→ `CTX0002`). */
  DeadlineExceeded = 'deadline_exceeded',
  /** The egress proxy refused the page's own address (→ `RESP001`). */
  EgressRefused = 'egress_refused',
  /** The page's host name does not resolve (→ `RESP007`). */
  DnsFailure = 'dns_failure',
  /** The page could not be loaded: connection refused or reset, TLS failure, … (→ `RESP001`). */
  NavigationFailed = 'navigation_failed',
  /** The page downloaded more than `BROWSER_MAX_PAGE_BYTES`; its connections were cut (→ `RESP005`). */
  TooLarge = 'too_large',
  /** `screenshot_selector` matched nothing, or the image could not be taken (→ `RESP001`). */
  ScreenshotFailed = 'screenshot_failed',
  /** The caller aborted (client went away or worker shutdown). */
  Aborted = 'aborted',
  /**
   * A reused page's renderer stopped answering before the request sent anything, or (a GET only,
   * which may be sent again) its main document arrived and was never shown: the pool retries the
   * request once in a fresh page.
   */
  PageUnresponsive = 'page_unresponsive',
}

/** A failure of the browser engine; the message is safe to show a tenant (no internal addresses). */
export class BrowserError extends CodedError<BrowserErrorCode> {}
