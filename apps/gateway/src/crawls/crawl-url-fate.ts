import type { CrawlUrlFateResource } from '@trawl/contracts/http';
import { isSameSite } from '@trawl/egress';
import type { SkippedUrlReason } from '@trawl/persistence';

/** What the crawl holds of one URL key: its frontier row, or a record of why it skipped the URL. */
export interface UrlTrace {
  frontier?: {
    url: string;
    /** Null for the start URL. */
    itemSeq: number | null;
    state: string;
    pageOutcome: string | null;
    pageError: string | null;
  };
  skipped?: { url: string; reason: SkippedUrlReason; foundOn: string };
}

/** The crawl's rules a URL is judged by. */
export interface FateRules {
  /** The crawl has ended: a page still queued will never be fetched. */
  ended: boolean;
  scopeDomain: string;
  includePatterns: string[];
  excludePatterns: string[];
}

/**
 * Where a URL went in a crawl (docs/decisions/crawl-api.md, "Where each URL went"), from what the
 * crawl holds under its key and, for what it holds nothing of, the crawl's own rules: scope and
 * patterns judge any URL the same whether the crawl met it or not.
 *
 * @param normalized `normalizeUrl` of the URL asked about.
 */
export function urlFate(asked: string, normalized: string, trace: UrlTrace, rules: FateRules): CrawlUrlFateResource {
  const base = { url: asked, normalized_url: normalized };
  const { frontier, skipped } = trace;
  if (frontier) {
    const page = pageOf(frontier, rules.ended);
    if (frontier.itemSeq === null) {
      return { ...base, fate: 'start_url', detail: 'The start URL: fetched to open it, never a result.', page };
    }
    if (frontier.url !== normalized) {
      return {
        ...base,
        fate: 'duplicate',
        detail: `The same URL as the result ${frontier.url} (scheme, www., a trailing slash or tracking parameters aside); kept once.`,
        result_url: frontier.url,
        page,
      };
    }
    return { ...base, fate: 'kept', detail: 'A result of the crawl.', result_url: frontier.url, page };
  }
  const host = new URL(normalized).hostname;
  if (!isSameSite(host, rules.scopeDomain)) {
    return { ...base, fate: 'out_of_scope', detail: `Not on the crawl's site (${rules.scopeDomain}): its links there are never followed.` };
  }
  if (skipped?.reason === 'over_max_items') {
    return {
      ...base,
      fate: 'over_max_items',
      detail: 'Met after the crawl had kept max_items URLs.',
      found_on: skipped.foundOn,
    };
  }
  if (skipped?.reason === 'robots_disallowed') {
    return { ...base, fate: 'robots_disallowed', detail: "The site's robots.txt disallows it.", found_on: skipped.foundOn };
  }
  const exclude = rules.excludePatterns.find((pattern) => normalized.includes(pattern));
  if (exclude !== undefined)
    return { ...base, fate: 'excluded', detail: `It contains the exclude pattern "${exclude}".`, pattern: exclude };
  if (rules.includePatterns.length > 0 && !rules.includePatterns.some((pattern) => normalized.includes(pattern))) {
    return { ...base, fate: 'excluded', detail: 'It contains none of the include patterns.' };
  }
  return {
    ...base,
    fate: 'not_seen',
    detail: 'No page the crawl opened links to it (so far): beyond the depth, or unlinked from the pages it fetched.',
  };
}

function pageOf(frontier: NonNullable<UrlTrace['frontier']>, ended: boolean): NonNullable<CrawlUrlFateResource['page']> {
  if (frontier.state === 'queued') return { state: ended ? 'not_fetched' : 'queued' };
  if (frontier.state === 'dispatched') return { state: 'in_flight' };
  switch (frontier.pageOutcome) {
    case 'fetched':
      return { state: 'fetched' };
    case 'failed':
    case 'failed_billed':
      return { state: 'failed', ...(frontier.pageError !== null && { error: frontier.pageError }) };
    case 'disallowed':
      return { state: 'not_fetched', error: 'robots_txt' };
    default:
      // Kept without a fetch (past the depth, no content asked), or dropped when the crawl ended.
      return { state: 'not_fetched' };
  }
}
