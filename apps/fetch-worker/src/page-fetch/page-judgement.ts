import { Tier } from '@trawl/billing';
import { decodeHtml } from './charset';
import { looksLikeHtml, mayBeHtml, mediaTypeOf } from './media-type';
import { creditsFor, PageVerdict, verdictOfStatus } from './page-outcome';

/**
 * Which response bodies to read: `html` (a crawl: links and kept HTML come only from HTML),
 * `any` (the caller wants whatever the page is), `none` (status only).
 */
export type BodyReading = 'html' | 'any' | 'none';

/** A page as its tier's engine answered it, whatever the engine. */
export interface LoadedPage {
  status: number;
  /** URL of the last response, after redirects. */
  finalUrl: string;
  /** The Content-Type header as sent, if any. */
  contentType?: string;
  /** Body bytes after content-encoding was undone; empty when the body was not wanted. */
  body: Buffer;
  /** The document as text when the engine has it decoded already (a browser's rendered DOM). */
  html?: string;
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
  const html = htmlOf(page);
  if (html !== undefined) result.html = html;
  return result;
}

function htmlOf(page: LoadedPage): string | undefined {
  if (page.html !== undefined) return page.html;
  const mediaType = mediaTypeOf(page.contentType);
  if (!mayBeHtml(mediaType)) return undefined;
  if (mediaType === undefined && !looksLikeHtml(page.body)) return undefined;
  return decodeHtml(page.body, page.contentType).text;
}
