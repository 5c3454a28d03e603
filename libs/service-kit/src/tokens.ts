/**
 * Injection tokens of what every back-end service shares, the same in each (the database is
 * injected by its class, `Database` of @trawl/persistence). A feature's tunables keep their own
 * token beside them (`<FEATURE>_SETTINGS` in `<feature>.settings.ts`).
 */

/** The service's pino logger (`Logger` of @trawl/observability). */
export const SERVICE_LOGGER = Symbol('SERVICE_LOGGER');

/** The service's one NATS connection, JetStream client included (`MessagingConnection` of @trawl/messaging). */
export const SERVICE_MESSAGING = Symbol('SERVICE_MESSAGING');
