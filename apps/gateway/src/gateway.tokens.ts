/**
 * Injection token of the gateway's config; classes are injected by class, and the logger and the
 * NATS connection by `SERVICE_LOGGER` and `SERVICE_MESSAGING` of @trawl/service-kit, as on every service.
 */
export const GATEWAY_CONFIG = Symbol('GATEWAY_CONFIG');
