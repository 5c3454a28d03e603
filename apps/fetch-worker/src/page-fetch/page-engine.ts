import { Tier } from '@trawl/billing';

/** One page load asked of an engine. */
export interface EngineRequest {
  /** Absolute http(s) URL. */
  url: string;
  /**
   * Whether the body is worth reading, given the response's media type (lowercase, without
   * parameters; undefined when the response has no Content-Type). Bodies not wanted are discarded
   * unread, so a crawl never downloads a 10 MB PDF it cannot take links from.
   */
  wantsBody(mediaType: string | undefined): boolean;
  /** Whole load, redirects and body included, in ms. */
  timeoutMs: number;
  /** Aborts the load (worker shutdown). */
  signal?: AbortSignal;
}

/** What an engine saw of a page. */
export interface EngineResponse {
  status: number;
  /** URL of the last response, after redirects. */
  finalUrl: string;
  /** URLs that redirected, in order, the requested URL first (empty without redirects). */
  redirectChain: string[];
  /** The Content-Type header as sent, if any. */
  contentType?: string;
  /** Body bytes after content-encoding was undone; empty when the body was not wanted. */
  body: Buffer;
  /**
   * The document as text when the engine has it decoded already (a browser engine's rendered
   * DOM); the HTTP engine leaves it out and the body is decoded by its charset.
   */
  html?: string;
}

/**
 * A way of loading pages. The HTTP engine (undici) serves the `basic` tier; a browser engine
 * (Chromium) serving `js_render` implements the same interface, so `PageFetchService` picks an
 * engine by tier and treats every answer alike.
 */
export interface PageEngine {
  readonly tier: Tier;
  /**
   * Loads a page. Answers with whatever HTTP status the site gave.
   *
   * @throws EgressError when the page could not be loaded (refused, unreachable, timed out, too big).
   */
  load(request: EngineRequest): Promise<EngineResponse>;
  /** Releases pooled connections or browsers. Safe to call twice. */
  close(): Promise<void>;
}
