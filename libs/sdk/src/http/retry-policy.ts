/** How the client retries (defaults in brackets). */
export interface RetryOptions {
  /** Retries after the first attempt [4]; 0 turns retrying off. */
  maxRetries?: number;
  /** Ceiling of the first backoff, in milliseconds [500]; each retry doubles it. */
  baseDelayMs?: number;
  /** Longest wait between two attempts, in milliseconds [30,000]; a longer `Retry-After` is still honoured up to `maxRetryAfterMs`. */
  maxDelayMs?: number;
  /** Longest `Retry-After` honoured, in milliseconds [120,000]; a server asking for more ends the retries. */
  maxRetryAfterMs?: number;
}

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterMs: 120_000 };

/** Statuses worth another attempt: the account's concurrency or rate limit (429), the service briefly unable (503). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 503;
}

/**
 * `Retry-After` in milliseconds: seconds (`120`) or an HTTP date, against `now`. Undefined when
 * absent or unreadable; 0 for a date already past.
 */
export function retryAfterMs(header: string | null | undefined, now: number = Date.now()): number | undefined {
  if (header === null || header === undefined || header.trim() === '') return undefined;
  const value = header.trim();
  if (/^\d+(?:\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Milliseconds before retry number `retry` (1 for the first): "full jitter" exponential backoff,
 * a random wait up to `baseDelayMs · 2^(retry-1)` capped at `maxDelayMs`, so that many clients
 * throttled at once do not come back at once. A server's `Retry-After` is a floor: the wait is
 * never shorter. Undefined when the server asks for longer than `maxRetryAfterMs` (give up).
 */
export function backoffMs(
  retry: number,
  serverAskedMs: number | undefined,
  options: Required<RetryOptions>,
  random: () => number = Math.random,
): number | undefined {
  if (serverAskedMs !== undefined && serverAskedMs > options.maxRetryAfterMs) return undefined;
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  const jittered = Math.floor(random() * ceiling);
  return serverAskedMs === undefined ? jittered : Math.max(serverAskedMs, jittered);
}
