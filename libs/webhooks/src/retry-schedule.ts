/** When failed deliveries are tried again (spec-batch-api §6: "not shown"; decided in docs/decisions/webhooks.md, "Retries"). */
export interface RetrySchedule {
  /** Ceiling of the first retry's delay, in ms; doubles per attempt. Default 30,000. */
  baseMs: number;
  /** Largest ceiling of one delay, in ms. Default 4 h. */
  maxDelayMs: number;
  /** How long after the event was received attempts keep being made, in ms. Default 24 h. */
  windowMs: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseMs: 30_000, maxDelayMs: 4 * 3600_000, windowMs: 24 * 3600_000 };

/**
 * The delay before the retry that follows failed attempt `attempt` (1-based): exponential backoff
 * with full jitter, uniform in `[0, min(maxDelayMs, baseMs · 2^(attempt-1))]`, so receivers that
 * came back after an outage are not hit by every dispatcher at once. `random` is injectable for tests.
 */
export function retryDelayMs(schedule: RetrySchedule, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(schedule.maxDelayMs, schedule.baseMs * 2 ** Math.min(attempt - 1, 40));
  return Math.floor(random() * ceiling);
}

/**
 * When to try again after failed attempt `attempt`, or `undefined` to give up because the next try
 * would fall outside the retry window that started at `firstReceivedAt`.
 */
export function nextAttemptAt(
  schedule: RetrySchedule,
  attempt: number,
  firstReceivedAt: Date,
  now: Date,
  random: () => number = Math.random,
): Date | undefined {
  const next = new Date(now.getTime() + retryDelayMs(schedule, attempt, random));
  return next.getTime() > firstReceivedAt.getTime() + schedule.windowMs ? undefined : next;
}
