import type { Tier } from '@trawl/billing';
import type { FetchOptionsV1, ScreenshotFormat } from '@trawl/contracts';
import type { BrowserIdentity } from '../identity';
import type { ProxyChoice } from '../proxies';

/** One target request of the Fetch API, as an engine gets it. */
export interface TargetRequest {
  /** Whose request it is: a rendered page is reused only within one tenant. */
  tenantId: string;
  /** The tier of this attempt (the one billed when it serves): it says whether to render. */
  tier: Tier;
  /** The upstream proxy to go through (ProxyRouter's choice); direct egress when absent. */
  proxy?: ProxyChoice;
  /** Absolute http(s) URL (the egress policy decides at connect time). */
  url: string;
  method: 'GET' | 'POST' | 'PUT';
  /**
   * The browser every engine presents for this request (one per session, or per tenant and domain):
   * its headers for plain HTTP, its overrides in the browser.
   */
  identity: BrowserIdentity;
  /** The caller's own headers only (see `callerRequestHeaders`): over the identity's, in their place. */
  callerHeaders: Record<string, string>;
  body?: Buffer;
  options: FetchOptionsV1;
  /** Largest target body read, in bytes. */
  maxBodyBytes: number;
  /**
   * Whether to download the final body, given its Content-Type (plain HTTP only: a browser loads
   * what the page needs). A crawl reads only HTML; the Fetch API every body (the default).
   */
  acceptBody?: (contentType: string | undefined) => boolean;
  /** Time left for the whole load, in ms. */
  timeoutMs: number;
  /** Aborts the load: the caller went away, or the worker stops. */
  signal: AbortSignal;
}

/** An XHR/fetch call the page made (fetch-details "json_response"). */
export interface CapturedXhr {
  url: string;
  body: string;
  status_code: number;
  method: string;
  headers: Record<string, string>;
  request_headers: Record<string, string>;
}

/** fetch-details "json_response" → `js_instructions_report`. */
export interface JsInstructionsReport {
  instructions_duration: number;
  instructions_executed: number;
  instructions_succeeded: number;
  instructions_failed: number;
  instructions: { instruction: string; params: unknown; success: boolean; duration: number }[];
}

export interface PageScreenshot {
  data: Buffer;
  type: ScreenshotFormat;
  width: number;
  height: number;
}

/** What an engine got of the target. */
export interface TargetPage {
  /** The tier that served the page (the one billed). */
  tier: Tier;
  status: number;
  finalUrl: string;
  /** The target's response headers (lower-case names). */
  headers: Record<string, string | string[]>;
  contentType?: string;
  /** The body as received (decompressed); for a rendered page, what the server sent. */
  body: Buffer;
  /** The document as text when the engine has it already (a browser's rendered DOM). */
  html?: string;
  xhr?: CapturedXhr[];
  jsInstructionsReport?: JsInstructionsReport;
  screenshot?: PageScreenshot;
  /** The page printed as PDF (`response_type=pdf`). */
  pdf?: Buffer;
}

/**
 * A way of fetching a target for the Fetch API. The HTTP engine serves `basic` and `premium`, a
 * browser engine `js_render` and `premium_js_render`; the proxy is chosen per attempt.
 */
export interface FetchEngine {
  /**
   * Fetches the target. Answers whatever status the target gave.
   *
   * @throws EgressError when the target could not be reached (refused, unreachable, too big,
   *   timed out); FetchRequestError for a verdict of its own; the signal's reason when aborted.
   */
  fetch(request: TargetRequest): Promise<TargetPage>;
}
