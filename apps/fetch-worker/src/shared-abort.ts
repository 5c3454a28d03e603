import { setMaxListeners } from 'node:events';

/**
 * An AbortController whose signal every call in flight listens to (a worker's shutdown): one
 * listener per call, removed when the call ends, so more than Node's default of 10 at once is the
 * concurrency, not a leak, and must not print "MaxListenersExceededWarning: Possible EventTarget
 * memory leak" into an operator's logs under load.
 */
export function sharedAbortController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
