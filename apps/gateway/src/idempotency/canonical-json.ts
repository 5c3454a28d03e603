import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every level and `undefined` members left out, so two bodies that
 * mean the same thing give the same text whatever their key order or whitespace.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

/** What `idempotency_keys.body_hash` holds: SHA-256 of the canonical JSON of the parsed body. */
export function bodyHash(parsedBody: unknown): Buffer {
  return createHash('sha256').update(canonicalJson(parsedBody), 'utf8').digest();
}
