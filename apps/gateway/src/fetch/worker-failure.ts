import { MessagingError, MessagingErrorCode } from '@trawl/messaging';
import { FetchError, FetchErrorCode } from './fetch.errors';

/** Why the gateway stopped waiting for a worker on its own. */
export type AbortReason = 'client_closed' | 'deadline';

/**
 * Turns a failed call to the workers into the Fetch error the caller gets. `RESP009` carries a
 * jittered `Retry-After` of 1–5 s so that clients that all failed at once do not return at once.
 */
export function workerFailure(error: unknown, abortReason: AbortReason | undefined, random: () => number = Math.random): FetchError {
  const code = error instanceof MessagingError ? error.code : undefined;
  if (abortReason === 'deadline') {
    return new FetchError(
      FetchErrorCode.DeadlineExceeded,
      'The request exceeded the maximum time allowed; retry, perhaps with fewer or shorter waits.',
    );
  }
  if (abortReason === 'client_closed' || code === MessagingErrorCode.RpcCancelled) {
    return new FetchError(FetchErrorCode.Cancelled, 'The request was cancelled by the client.');
  }
  switch (code) {
    case MessagingErrorCode.RpcNoResponders:
    case MessagingErrorCode.RpcBusy: {
      const advice = retryAdvice(FetchErrorCode.NoCapacity, random);
      return new FetchError(
        FetchErrorCode.NoCapacity,
        `All capacity is busy; retry in ${advice['retry-after']} s with backoff and jitter.`,
        {},
        advice,
      );
    }
    default:
      // A worker lost mid-request, a worker that failed, or anything unforeseen: retryable.
      return new FetchError(
        FetchErrorCode.WorkerLost,
        'The request failed inside the service; retry after 10 to 30 seconds.',
        {},
        retryAdvice(FetchErrorCode.WorkerLost, random),
      );
  }
}

/**
 * `Retry-After` (seconds, jittered) of a retryable code, whether the gateway or a worker decided
 * it: 1–5 s for `RESP009` (capacity), 10–30 s for `ERR0001` and `ERR0000`; nothing for other codes.
 */
export function retryAdvice(code: string | undefined, random: () => number = Math.random): Record<string, string> {
  if (code === FetchErrorCode.NoCapacity) return { 'retry-after': String(1 + Math.floor(random() * 5)) };
  if (code === FetchErrorCode.WorkerLost || code === FetchErrorCode.Internal)
    return { 'retry-after': String(10 + Math.floor(random() * 21)) };
  return {};
}
