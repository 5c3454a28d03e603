import type { CacheStatus } from '@trawl/contracts';
import { Tier } from '@trawl/billing';
import { mayBeHtml, mediaTypeOf } from './media-type';
import { creditsFor, PageVerdict, verdictOfStatus } from './page-outcome';
import { isHtmlPage, pageText, type TextSource } from './page-text';

/**
 * Which response bodies to read: `html` (a crawl: links and kept HTML come only from HTML),
 * `any` (the caller wants whatever the page is), `none` (status only).
 */
export type BodyReading = 'html' | 'any' | 'none';

/** A page as its tier's engine answered it, whatever the engine. */
export interface LoadedPage extends TextSource {
  status: number;
  /** URL of the last response, after redirects. */
  finalUrl: string;
}

/** A page's verdict, price and what was read of it. */
export interface PageFetchResult extends PageVerdict {
  tier: Tier;
  /** Credits the page costs at `tier` (0 when it failed unbilled). */
  credits: number;
  /** Status of the final response; absent when none came (egress refusal, timeout…). */
  statusCode?: number;
  finalUrl?: string;
  contentType?: string;
  /** The document as text, when it is HTML and was fetched (2xx). */
  html?: string;
  /** Body bytes (decompressed) when the page was fetched and its body was read. */
  body?: Buffer;
  durationMs: number;
  /** Asked with `max_age`: answered from a kept copy (`hit`) or fetched now (`miss`). */
  cache?: CacheStatus;
}

/**
 * Whether a body of this Content-Type is worth downloading for `read`: bodies not wanted are
 * discarded unread, so a crawl never downloads a 10 MB PDF it cannot take links from.
 */
export function bodyWanted(read: BodyReading): (contentType: string | undefined) => boolean {
  switch (read) {
    case 'any':
      return () => true;
    case 'html':
      return (contentType) => mayBeHtml(mediaTypeOf(contentType));
    case 'none':
      return () => false;
  }
}

/** The verdict, price and text of a page loaded at `tier`, reading what `read` asks for. */
export function judgePage(page: LoadedPage, tier: Tier, read: BodyReading): Omit<PageFetchResult, 'durationMs'> {
  const verdict = verdictOfStatus(page.status);
  const result: Omit<PageFetchResult, 'durationMs'> = {
    ...verdict,
    tier,
    credits: creditsFor(verdict.outcome, tier),
    statusCode: page.status,
    finalUrl: page.finalUrl,
    contentType: page.contentType,
  };
  if (verdict.outcome !== 'fetched') return result;
  if (read === 'none') return result;
  if (read === 'any') result.body = page.body;
  // The same page object the block detector read: its text is decoded once (pageText).
  if (isHtmlPage(page)) result.html = pageText(page);
  return result;
}
