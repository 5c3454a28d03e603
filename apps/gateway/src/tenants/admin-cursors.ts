import { decodeCursorToken, encodeCursorToken, isUuid } from '@trawl/http';
import { TenantError, TenantErrorCode } from './tenants.errors';

/**
 * Opaque cursors of the admin lists, base64url JSON like the Crawl API's: they hold no secret;
 * opacity only keeps callers from building them. Each list checks its own kind (`k`).
 */

/** Position in a list ordered `(created_at DESC, id DESC)`: the last row returned. */
export interface CreatedCursor {
  /** `created_at` in microseconds since the epoch, as a decimal string (exact, unlike a JS Date). */
  createdAtMicros: string;
  id: string;
}

export type CreatedListKind = 'tenants' | 'keys';

export function encodeCreatedCursor(kind: CreatedListKind, cursor: CreatedCursor): string {
  return encodeCursorToken({ k: kind, t: cursor.createdAtMicros, c: cursor.id });
}

/** @throws TenantError `invalid_cursor` when the token is not a cursor of this list. */
export function decodeCreatedCursor(kind: CreatedListKind, token: string | undefined): CreatedCursor | undefined {
  if (token === undefined) return undefined;
  const data = decodeCursorToken(token);
  if (data?.k !== kind || typeof data.c !== 'string' || !isUuid(data.c) || typeof data.t !== 'string' || !/^\d{1,18}$/.test(data.t)) {
    return invalidCursor();
  }
  return { createdAtMicros: data.t, id: data.c };
}

export function encodeAuditCursor(id: string): string {
  return encodeCursorToken({ k: 'audit', i: id });
}

/** The last audit id read. @throws TenantError `invalid_cursor`. */
export function decodeAuditCursor(token: string | undefined): string | undefined {
  if (token === undefined) return undefined;
  const data = decodeCursorToken(token);
  if (data?.k !== 'audit' || typeof data.i !== 'string' || !/^\d{1,18}$/.test(data.i)) return invalidCursor();
  return data.i;
}

function invalidCursor(): never {
  throw new TenantError(TenantErrorCode.InvalidAdminCursor, '`cursor` is not a cursor this list gave; start without one.', {
    parameter: 'cursor',
  });
}
