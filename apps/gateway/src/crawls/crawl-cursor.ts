import { decodeCursorToken, encodeCursorToken } from '@trawl/http';
/**
 * Opaque cursors of the Crawl API: base64url of a small JSON object. They hold no secret (every
 * read is scoped to the caller's tenant anyway); opacity only keeps callers from building them.
 */

/** Position in one crawl's results: the last `item_seq` read. */
export interface ResultsCursor {
  crawlId: string;
  seq: number;
}

/** Position in a tenant's crawl list (newest first): the last crawl returned. */
export interface ListCursor {
  /** `created_at` in microseconds since the epoch, as a decimal string (exact, unlike a JS Date). */
  createdAtMicros: string;
  crawlId: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MAX_SEQ = 2_147_483_647; // item_seq is a Postgres integer

export function isCrawlId(value: string): boolean {
  return UUID.test(value);
}

export function encodeResultsCursor(cursor: ResultsCursor): string {
  return encodeCursorToken({ k: 'r', c: cursor.crawlId, s: cursor.seq });
}

/** The cursor, or `undefined` when the token is not a results cursor at all. */
export function decodeResultsCursor(token: string): ResultsCursor | undefined {
  const data = decodeCursorToken(token);
  if (data?.k !== 'r' || typeof data.c !== 'string' || !isCrawlId(data.c)) return undefined;
  if (typeof data.s !== 'number' || !Number.isInteger(data.s) || data.s < 0 || data.s > MAX_SEQ) return undefined;
  return { crawlId: data.c, seq: data.s };
}

export function encodeListCursor(cursor: ListCursor): string {
  return encodeCursorToken({ k: 'l', t: cursor.createdAtMicros, c: cursor.crawlId });
}

/** The cursor, or `undefined` when the token is not a list cursor at all. */
export function decodeListCursor(token: string): ListCursor | undefined {
  const data = decodeCursorToken(token);
  if (data?.k !== 'l' || typeof data.c !== 'string' || !isCrawlId(data.c)) return undefined;
  if (typeof data.t !== 'string' || !/^\d{1,18}$/.test(data.t)) return undefined;
  return { createdAtMicros: data.t, crawlId: data.c };
}
