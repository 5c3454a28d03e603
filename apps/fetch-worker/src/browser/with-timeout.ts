import { BrowserError, BrowserErrorCode } from './browser.errors';

/**
 * `promise`, or a `CallTimeout` BrowserError once `ms` pass: a wedged Chromium must never hang a
 * request, so every browser call goes through this. The late outcome of `promise` is swallowed.
 *
 * @param what names the call in the error message, e.g. `"newPage"`.
 */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => {
        promise.catch(() => undefined);
        reject(new BrowserError(BrowserErrorCode.CallTimeout, `Browser call ${what} took longer than ${Math.round(ms)} ms`));
      },
      Math.max(0, ms),
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
