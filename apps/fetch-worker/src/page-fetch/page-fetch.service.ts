import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import { Tier } from '@trawl/billing';
import { WorkerMetrics } from '../worker.metrics';
import { decodeHtml } from './charset';
import { looksLikeHtml, mayBeHtml, mediaTypeOf } from './media-type';
import { EngineResponse, PageEngine } from './page-engine';
import { PageFetchError, PageFetchErrorCode } from './page-fetch.errors';
import { creditsFor, PageVerdict, verdictOfError, verdictOfStatus } from './page-outcome';

export const PAGE_ENGINES = Symbol('PAGE_ENGINES');
export const PAGE_FETCH_SETTINGS = Symbol('PAGE_FETCH_SETTINGS');

export interface PageFetchSettings {
  /** Whole page load, redirects and body included, in ms (`PAGE_TIMEOUT_MS`, default 30,000). */
  pageTimeoutMs: number;
}

/**
 * Which response bodies to read: `html` (a crawl: links and kept HTML come only from HTML),
 * `any` (the caller wants whatever the page is), `none` (status only).
 */
export type BodyReading = 'html' | 'any' | 'none';

export interface PageFetchRequest {
  /** Absolute http(s) URL. */
  url: string;
  /** Default: `html`. */
  read?: BodyReading;
  /** Engine tier to load the page with. Default: `basic`. */
  tier?: Tier;
  /** Aborts the load; the fetch then throws `PageFetchError` `Aborted` instead of a verdict. */
  signal?: AbortSignal;
}

export interface PageFetchResult extends PageVerdict {
  tier: Tier;
  /** Credits the page costs at `tier` (0 when it failed unbilled). */
  credits: number;
  /** Status of the final response; absent when none came (egress refusal, timeout…). */
  statusCode?: number;
  finalUrl?: string;
  redirectChain: string[];
  contentType?: string;
  /** The document as text, when it is HTML and was fetched (2xx). */
  html?: string;
  /** Body bytes (decompressed) when the page was fetched and its body was read. */
  body?: Buffer;
  durationMs: number;
}

/**
 * Loads one page with the engine of the asked tier and judges the outcome (fetched, failed but
 * billed, failed) and its price. The crawl consumer and, later, the Fetch API call this, so it
 * knows nothing of NATS.
 */
@Injectable()
export class PageFetchService implements OnApplicationShutdown {
  private readonly engines: ReadonlyMap<Tier, PageEngine>;

  constructor(
    @Inject(PAGE_ENGINES) engines: PageEngine[],
    @Inject(PAGE_FETCH_SETTINGS) private readonly settings: PageFetchSettings,
    private readonly metrics: WorkerMetrics,
  ) {
    this.engines = new Map(engines.map((engine) => [engine.tier, engine]));
  }

  /**
   * Fetches `request.url`. Failures of the page (refused, unreachable, HTTP errors) are verdicts,
   * not exceptions.
   *
   * @throws PageFetchError `Aborted` when `request.signal` aborted the load; `TierUnavailable`
   *   when no engine serves the tier.
   */
  async fetchPage(request: PageFetchRequest): Promise<PageFetchResult> {
    const tier = request.tier ?? Tier.Basic;
    const engine = this.engines.get(tier);
    if (!engine) throw new PageFetchError(PageFetchErrorCode.TierUnavailable, `No engine serves the ${tier} tier`);
    const read = request.read ?? 'html';
    const started = performance.now();
    let result: Omit<PageFetchResult, 'durationMs'>;
    try {
      const response = await engine.load({
        url: request.url,
        timeoutMs: this.settings.pageTimeoutMs,
        signal: request.signal,
        wantsBody: (mediaType) => read === 'any' || (read === 'html' && mayBeHtml(mediaType)),
      });
      result = judgeResponse(response, tier, read);
    } catch (error) {
      if (request.signal?.aborted) {
        throw new PageFetchError(PageFetchErrorCode.Aborted, `Fetching ${request.url} was aborted`, { cause: error });
      }
      const verdict = verdictOfError(error);
      result = { ...verdict, tier, credits: creditsFor(verdict.outcome, tier), redirectChain: [] };
    }
    const durationMs = performance.now() - started;
    this.metrics.fetchSeconds.observe({ tier, outcome: result.outcome }, durationMs / 1000);
    return { ...result, durationMs };
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.engines.values()].map((engine) => engine.close()));
  }
}

/** The verdict, price and text of a page an engine loaded at `tier`, reading what `read` asks for. */
export function judgeResponse(response: EngineResponse, tier: Tier, read: BodyReading): Omit<PageFetchResult, 'durationMs'> {
  const verdict = verdictOfStatus(response.status);
  const result: Omit<PageFetchResult, 'durationMs'> = {
    ...verdict,
    tier,
    credits: creditsFor(verdict.outcome, tier),
    statusCode: response.status,
    finalUrl: response.finalUrl,
    redirectChain: response.redirectChain,
    contentType: response.contentType,
  };
  if (verdict.outcome !== 'fetched') return result;
  if (read === 'none') return result;
  if (read === 'any') result.body = response.body;
  const html = htmlOf(response);
  if (html !== undefined) result.html = html;
  return result;
}

function htmlOf(response: EngineResponse): string | undefined {
  if (response.html !== undefined) return response.html;
  const mediaType = mediaTypeOf(response.contentType);
  if (!mayBeHtml(mediaType)) return undefined;
  if (mediaType === undefined && !looksLikeHtml(response.body)) return undefined;
  return decodeHtml(response.body, response.contentType).text;
}
