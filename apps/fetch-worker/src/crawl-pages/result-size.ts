import { CrawlPageResultV1 } from '@trawl/contracts';

/**
 * Largest page result published, in bytes of JSON: NATS refuses payloads over `max_payload`
 * (1 MiB by default), and the headers (msg id, traceparent) and a margin must fit beside it.
 */
export const MAX_RESULT_BYTES = 900 * 1024;

/** What had to be left out of a page result to publish it. */
export interface Trimmed {
  /** The page HTML was too big; the coordinator marks the content failed. */
  content: boolean;
  /** Links dropped from the end of the list (only for pages with tens of thousands of links). */
  links: number;
}

/**
 * Makes a page result fit in one NATS message: the HTML goes first (it can be fetched again),
 * then links from the end, so a page with an absurd number of links still reports.
 */
export function fitResult(result: CrawlPageResultV1, maxBytes = MAX_RESULT_BYTES): { result: CrawlPageResultV1; trimmed: Trimmed } {
  const trimmed: Trimmed = { content: false, links: 0 };
  if (jsonBytes(result) <= maxBytes) return { result, trimmed };
  let fitted = result;
  if (fitted.content !== undefined) {
    const { content: _dropped, ...rest } = fitted;
    fitted = rest;
    trimmed.content = true;
  }
  let excess = jsonBytes(fitted) - maxBytes;
  if (excess <= 0) return { result: fitted, trimmed };
  const links = [...fitted.links];
  // Normalised URLs are ASCII (punycode, percent-encoding): each costs its length, two quotes and a comma.
  while (excess > 0 && links.length > 0) {
    excess -= links.pop()!.length + 3;
    trimmed.links++;
  }
  return { result: { ...fitted, links }, trimmed };
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
