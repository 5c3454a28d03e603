import { CrawlPageResultV1 } from '@trawl/contracts';

/**
 * Largest page result published, in bytes of JSON: NATS refuses payloads over `max_payload`
 * (1 MiB by default), and the headers (msg id, traceparent) and a margin must fit beside it.
 */
export const MAX_RESULT_BYTES = 900 * 1024;

/**
 * Largest page HTML carried inside its result, in bytes of its JSON string (UTF-8, escapes
 * included); larger HTML travels beside the result in chunks (`content_ref`). Half a message, as a
 * batch task's inline body, so the links always have room.
 */
const MAX_INLINE_CONTENT_BYTES = 512 * 1024;

/** Room kept for the `content_ref` of spilled HTML (`"content_ref":{"chunks":…,"bytes":…,"id":"…"}`), in bytes. */
const CONTENT_REF_BYTES = 160;

/** A page result made to fit one NATS message, and what had to travel or be left out. */
export interface FittedResult {
  /** The result to publish: without `content` when the HTML travels aside. */
  result: CrawlPageResultV1;
  /** The page HTML, when it is too large for the message: to spill, then reference (`content_ref`). */
  spill?: string;
  /** Links dropped from the end of the list (only for pages with tens of thousands of links). */
  droppedLinks: number;
}

/**
 * Makes a page result fit in one NATS message: HTML over `maxInlineContentBytes`, or that the rest
 * leaves no room for, moves out to be spilled; then links go from the end, so a page with an absurd
 * number of links still reports. Large HTML is measured without being serialised (a JSON copy of
 * a 10 MiB page costs up to 60 MiB).
 */
export function fitResult(
  result: CrawlPageResultV1,
  maxBytes = MAX_RESULT_BYTES,
  maxInlineContentBytes = MAX_INLINE_CONTENT_BYTES,
): FittedResult {
  const { content, ...rest } = result;
  // A bound that fits settles it without serialising: nearly every result is far below the limits
  // (the exact count was ~2 % of a crawl worker's CPU, for results of a few KB).
  const restBound = jsonBytesAtMost(rest);
  if (content === undefined ? restBound <= maxBytes : fitsInline(content.length, restBound, maxBytes, maxInlineContentBytes)) {
    return { result, droppedLinks: 0 };
  }
  const restBytes = jsonBytes(rest);
  let spill: string | undefined;
  if (content !== undefined) {
    const contentBytes = inlineBytes(content, maxInlineContentBytes);
    // `,"content":` and the string: the rest's JSON already has its braces.
    if (contentBytes !== undefined && restBytes + contentBytes + 11 <= maxBytes) return { result, droppedLinks: 0 };
    spill = content;
  }
  let excess = restBytes + (spill === undefined ? 0 : CONTENT_REF_BYTES) - maxBytes;
  if (excess <= 0) return { result: rest, spill, droppedLinks: 0 };
  const links = [...rest.links];
  let droppedLinks = 0;
  // Normalised URLs are ASCII (punycode, percent-encoding): each costs its length, two quotes and a comma.
  while (excess > 0 && links.length > 0) {
    const link = links.pop()!;
    excess -= link.length + 3;
    droppedLinks++;
  }
  return { result: { ...rest, links }, spill, droppedLinks };
}

/** Whether content of `chars` UTF-16 units fits inline beside the rest, by the bound `jsonBytesAtMost` gives a string. */
function fitsInline(chars: number, restBound: number, maxBytes: number, maxInlineContentBytes: number): boolean {
  const contentBound = chars * 6 + 2;
  return contentBound <= maxInlineContentBytes && restBound + contentBound + 11 <= maxBytes;
}

/**
 * An upper bound of `value`'s JSON size in bytes, without serialising it: a UTF-16 unit of a
 * string takes at most 6 bytes (`\u001f`; a surrogate pair 4 in UTF-8), a number at most 24.
 * Object keys are ours, ASCII, never escaped.
 */
export function jsonBytesAtMost(value: unknown): number {
  switch (typeof value) {
    case 'string':
      return value.length * 6 + 2;
    case 'number':
      return 24;
    case 'boolean':
      return 5;
    case 'object': {
      if (value === null) return 4;
      let bytes = 2;
      if (Array.isArray(value)) {
        for (const item of value) bytes += jsonBytesAtMost(item) + 1;
        return bytes;
      }
      for (const key in value) bytes += key.length + 4 + jsonBytesAtMost((value as Record<string, unknown>)[key]);
      return bytes;
    }
    default:
      return 0;
  }
}

/** Bytes of `text` as a JSON string, or undefined when over `max` (then never serialised). */
function inlineBytes(text: string, max: number): number | undefined {
  // Escapes only add bytes: raw UTF-8 over the limit settles it without a copy.
  if (Buffer.byteLength(text, 'utf8') > max) return undefined;
  const bytes = jsonBytes(text);
  return bytes <= max ? bytes : undefined;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}
