/**
 * Opaque cursor tokens of the list endpoints: a small JSON object as base64url. A token is not a
 * secret, only opaque; every endpoint checks the fields it decodes (and that the cursor is its own).
 */
export function encodeCursorToken(data: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(data), 'utf8').toString('base64url');
}

/** The object inside a token, or `undefined` for anything that is not one (never throws). */
export function decodeCursorToken(token: string): Record<string, unknown> | undefined {
  if (token.length === 0 || token.length > 256 || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  try {
    const data: unknown = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const LOWER_CASE_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** True for a UUID as Postgres writes it (lower case): ids in paths and cursors are checked before a query. */
export function isUuid(value: string): boolean {
  return LOWER_CASE_UUID.test(value);
}
