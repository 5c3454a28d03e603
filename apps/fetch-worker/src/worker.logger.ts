/** Injection token of the worker's pino logger (`Logger` from @trawl/observability). */
export const WORKER_LOGGER = Symbol('WORKER_LOGGER');
