/** Injection token of the worker's NATS connection (`MessagingConnection` from @trawl/messaging). */
export const WORKER_MESSAGING = Symbol('WORKER_MESSAGING');
