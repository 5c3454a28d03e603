import { TrawlTimeoutError } from './errors';
import { sleep } from './http/transport';

/** How a `waitFor…` polls (defaults in brackets). */
export interface WaitOptions<T> {
  /** Pause between two polls, in milliseconds [2,000]. */
  pollIntervalMs?: number;
  /** Longest wait, in milliseconds [none]. */
  timeoutMs?: number;
  /** Hears every poll's state (status, counts), for progress. */
  onProgress?: (state: T) => void;
  /** Ends the wait with a `TrawlAbortError`. */
  signal?: AbortSignal;
}

/** Polls `read` until `done` holds for its answer, which it resolves with. */
export async function waitUntil<T>(
  read: () => Promise<T>,
  done: (state: T) => boolean,
  options: WaitOptions<T> & { what: string },
): Promise<T> {
  const deadline = options.timeoutMs === undefined ? undefined : Date.now() + options.timeoutMs;
  for (;;) {
    const state = await read();
    options.onProgress?.(state);
    if (done(state)) return state;
    const pause = options.pollIntervalMs ?? 2_000;
    if (deadline !== undefined && Date.now() + pause > deadline)
      throw new TrawlTimeoutError(`Gave up waiting for ${options.what} after ${options.timeoutMs} ms`);
    await sleep(pause, options.signal);
  }
}
