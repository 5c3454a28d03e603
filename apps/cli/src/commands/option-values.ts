import { InvalidArgumentError } from 'commander';

/** Parses a whole number ≥ 1 (`--max-items 500`); commander reports the error as a usage error. */
export function positiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < 1)
    throw new InvalidArgumentError('must be a whole number of at least 1.');
  return number;
}

/** Parses a whole number ≥ 0 (`--depth 0` keeps the start page's links only). */
export function nonNegativeInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number)) throw new InvalidArgumentError('must be a whole number of at least 0.');
  return number;
}

/** Collects a repeatable option's values (`--include /a --include /b`). */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * Collects `--param name=value` pairs. A value that reads as JSON (`true`, `500`, `{"title":"h1"}`)
 * is sent as that value, anything else as the text (`proxy_country=de`).
 */
export function collectParam(pair: string, previous: Record<string, unknown> | undefined): Record<string, unknown> {
  const equals = pair.indexOf('=');
  if (equals <= 0) throw new InvalidArgumentError(`expected name=value, got "${pair}".`);
  const name = pair.slice(0, equals).trim();
  const raw = pair.slice(equals + 1);
  return { ...previous, [name]: jsonOrText(raw) };
}

function jsonOrText(raw: string): unknown {
  try {
    const value: unknown = JSON.parse(raw);
    // A quoted string or null read as JSON is what the user typed, quotes and all, more likely than not.
    return typeof value === 'string' || value === null ? raw : value;
  } catch {
    return raw;
  }
}
